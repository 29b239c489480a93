"""The official multi-turn categories: loading from the pinned data, replaying the ground
truth on bfcl-eval's simulated environments (skipped where they are not installed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bfcl_action.core.records import Mode, TestCase
from bfcl_action.dataset.multi_turn import MULTI_TURN_OFFICIAL, read_multi_turn
from bfcl_action.multiturn import ExecutionOptions, check_conversation, conversation_of
from bfcl_action.multiturn.conversation import ground_truth_output
from tests.support.official_envs import data_root, environment_python

pytestmark = pytest.mark.skipif(data_root() is None, reason="official data not cached")


def load(category: str) -> list[TestCase]:
    root = data_root()
    assert root is not None
    return read_multi_turn(root, category, dataset="bfcl@2026.3.23", suite=category, display="")


def test_every_multi_turn_category_has_200_entries_with_answers_per_turn() -> None:
    for category in MULTI_TURN_OFFICIAL:
        cases = load(category)
        assert len(cases) == 200
        for case in cases:
            assert len(conversation_of(case).ground_truth) == len(case.question)


def test_functions_come_from_the_involved_classes_docs() -> None:
    case = load("multi_turn_base")[0]
    names = {f.name for f in case.functions}
    assert {"cd", "mv", "post_tweet"} <= names


def test_miss_func_holds_functions_back_until_their_turn() -> None:
    conversation = conversation_of(load("multi_turn_miss_func")[0])
    assert conversation.added_functions == {3: conversation.added_functions[3]}
    assert [f.name for f in conversation.added_functions[3]] == ["sort"]
    assert "sort" not in {f.name for f in conversation.functions_at(2)}
    assert conversation.turns[3] == []


def test_long_context_cases_load_the_long_scenarios() -> None:
    assert all(conversation_of(c).long_context for c in load("multi_turn_long_context")[:3])
    assert not conversation_of(load("multi_turn_base")[0]).long_context


needs_envs = pytest.mark.skipif(environment_python() is None, reason="bfcl-eval not installed")


@needs_envs
@pytest.mark.parametrize("mode", [Mode.FC, Mode.PROMPT])
def test_replaying_the_ground_truth_passes(mode: Mode) -> None:
    options = ExecutionOptions(python=environment_python())
    for category in MULTI_TURN_OFFICIAL:
        for case in load(category)[::67]:
            output = ground_truth_output(conversation_of(case), mode)
            result = check_conversation(case, output, mode=mode, options=options)
            assert (result.valid, result.error) == (True, []), case.id


@needs_envs
def test_a_skipped_write_is_a_state_mismatch_on_the_official_file_system() -> None:
    case = load("multi_turn_base")[0]
    output = ground_truth_output(conversation_of(case), Mode.FC)
    first_step = output[0][0]
    output[0][0] = [call for call in first_step if "mkdir" not in call]
    result = check_conversation(
        case, output, mode=Mode.FC, options=ExecutionOptions(python=environment_python())
    )
    assert result.error_type == "multi_turn:instance_state_mismatch"


def test_the_example_replay_file_matches_the_example_cases() -> None:
    example = Path(__file__).parents[2] / "examples" / "notes-app"
    ids = [json.loads(line)["id"] for line in (example / "replay" / "ground_truth.jsonl").open()]
    assert [i for i in ids if i.startswith("own_multi_turn")] == [
        f"own_multi_turn_notes_{i}" for i in range(4)
    ]


def test_a_config_names_official_multi_turn_categories_but_all_never_selects_them(
    tmp_path: Path,
) -> None:
    from collections import Counter

    from bfcl_action.cases.suites import build_cases
    from bfcl_action.settings.config import load_config

    def categories(official: str) -> Counter[str]:
        config = tmp_path / ".bfcl.yml"
        config.write_text(f"version: 1\nsuites:\n  own: []\n  official: {official}\n")
        return Counter(c.category for c in build_cases(load_config(config), base_dir=tmp_path))

    assert categories("[simple_python, multi_turn_base]") == {
        "simple_python": 400,
        "multi_turn_base": 200,
    }
    assert set(categories("[multi_turn]")) == set(MULTI_TURN_OFFICIAL)
    assert not set(categories("[all]")) & set(MULTI_TURN_OFFICIAL)


def test_official_environments_come_from_the_pinned_wheel_without_installing_bfcl_eval() -> None:
    """`load_dataset` gives official multi-turn cases an import root extracted from the
    same verified wheel as the data; this interpreter runs them with no bfcl-eval install."""
    from bfcl_action.dataset import load_dataset

    cases = load_dataset("bfcl@2026.3.23", ["multi_turn_base"])[:3]
    [root] = {p for c in cases for p in (c.model_extra or {})["environment_paths"]}
    package = Path(root, "bfcl_eval/eval_checker/multi_turn_eval/func_source_code")
    assert (package / "math_api.py").is_file()
    assert Path(root, "bfcl_eval/__init__.py").read_text() == ""  # no framework import
    for case in cases:
        output = ground_truth_output(conversation_of(case), Mode.FC)
        result = check_conversation(case, output, mode=Mode.FC, options=ExecutionOptions())
        assert (result.valid, result.error) == (True, []), case.id

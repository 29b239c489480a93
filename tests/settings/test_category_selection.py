"""Category selection never drops a name silently: typos are errors with a did-you-mean,
documented groups expand, and `bfcl-action categories` lists every valid name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bfcl_action.cli import main
from bfcl_action.core.categories import (
    CATEGORIES,
    SELECTION_GROUPS,
    expand_categories,
    parse_categories,
)
from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import Message, TestCase
from bfcl_action.settings.config import parse_config
from bfcl_action.settings.select import select_cases

EXAMPLE = Path(__file__).parents[2] / "examples" / "weather-app"


def _case(case_id: str, category: str, suite: str | None = None) -> TestCase:
    return TestCase(
        id=case_id,
        category=category,
        suite=suite or category,
        question=[[Message(role="user", content="q")]],
    )


CASES = [
    _case("a", "own_simple"),
    _case("b", "own_multiple"),
    _case("c", "own_distractors", "own_distractors_k4"),
    _case("d", "simple_python"),
    _case("e", "live_simple"),
]


def test_a_misspelt_category_is_an_error_naming_the_closest_names() -> None:
    with pytest.raises(
        ConfigError, match=r"unknown category 'own_multipel'; did you mean 'own_multiple'"
    ):
        select_cases(CASES, categories=["own_simple", "own_multipel"])


def test_documented_groups_expand_to_their_categories() -> None:
    assert [c.id for c in select_cases(CASES, categories=["own"])] == ["a", "b", "c"]
    assert [c.id for c in select_cases(CASES, categories=["official"])] == ["d", "e"]
    assert [c.id for c in select_cases(CASES, categories=["live"])] == ["e"]
    assert [c.id for c in select_cases(CASES, categories=["non_live"])] == ["d"]
    assert expand_categories(["multi_turn"]) == [
        n for n, c in CATEGORIES.items() if c.group.value == "multi_turn"
    ]


def test_a_suite_label_selects_that_suite() -> None:
    assert [c.id for c in select_cases(CASES, categories=["own_distractors_k4"])] == ["c"]


def test_a_valid_name_that_selects_nothing_is_an_error_listing_what_is_there() -> None:
    with pytest.raises(
        ConfigError, match=r"'own_parallel' selects no case; the cases here are in: "
    ):
        select_cases(CASES, categories=["own_simple", "own_parallel"])


def test_the_config_suggests_the_closest_own_category() -> None:
    with pytest.raises(ConfigError, match=r"did you mean 'own_simple'"):
        parse_config("version: 1\nsuites:\n  own: [own_simpel]\n")


def test_run_with_a_typo_exits_2_and_names_the_fix(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "run",
            "--config",
            str(EXAMPLE / ".bfcl.yml"),
            "--model",
            f"replay:{EXAMPLE / 'replay' / 'head'}",
            "--categories",
            "own_simple,own_multipel",
        ]
    )
    assert code == 2
    assert "did you mean 'own_multiple'" in capsys.readouterr().err


def test_run_with_the_own_group_runs_every_own_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    out = tmp_path / "r.json"
    args = ["run", "--config", str(EXAMPLE / ".bfcl.yml"), "--categories", "own"]
    args += ["--model", f"replay:{EXAMPLE / 'replay' / 'head'}", "--output", str(out)]
    assert main(args) == 0
    report = json.loads(out.read_text())
    assert len(report["results"]) == 63


def test_the_categories_command_lists_every_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["categories", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert set(listed["categories"]) == set(CATEGORIES)
    assert set(listed["groups"]) == set(SELECTION_GROUPS)
    assert main(["categories"]) == 0
    text = capsys.readouterr().out
    assert all(name in text for name in [*CATEGORIES, *SELECTION_GROUPS])


def test_running_an_agentic_category_says_it_is_scored_not_run() -> None:
    with pytest.raises(ConfigError, match=r"does not run it yet .*needs a search backend"):
        parse_categories("web_search_base", ["simple_python"])
    with pytest.raises(ConfigError, match="is not in the selected dataset"):
        parse_categories("live_simple", ["simple_python"])

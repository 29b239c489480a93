"""Replay: recorded answers instead of a model, from BFCL result files or a run report."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from bfcl_action.core.errors import InputError
from bfcl_action.core.records import Mode, TestCase
from bfcl_action.runner.execute import CaseOutcome, execute
from bfcl_action.runner.replay import ReplayBackend
from tests.support.runner import function, make_case


def replay(path: Path, cases: list[TestCase], mode: Mode = Mode.FC) -> list[CaseOutcome]:
    backend = ReplayBackend.from_path(str(path), mode=mode)
    outcomes, _ = asyncio.run(execute(cases, backend))
    return outcomes


def write_lines(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_official_underscored_names_are_mapped_back_to_the_offered_functions(
    tmp_path: Path,
) -> None:
    results = write_lines(
        tmp_path / "BFCL_v4_simple_python_result.json",
        [{"id": "simple_python_0", "result": [{"math_factorial": '{"n": 5}'}]}],
    )
    case = make_case("simple_python_0", "5!", [function("math.factorial", "n")])
    [outcome] = replay(results, [case])
    assert outcome.samples[0].answer is not None
    assert outcome.samples[0].answer.output == [{"math.factorial": '{"n": 5}'}]


def test_prompt_text_is_replayed_unchanged(tmp_path: Path) -> None:
    results = write_lines(
        tmp_path / "BFCL_v4_simple_python_result.json",
        [{"id": "simple_python_0", "result": "[math_factorial(n=5)]"}],
    )
    case = make_case("simple_python_0", "5!", [function("math.factorial", "n")])
    [outcome] = replay(results, [case], Mode.PROMPT)
    assert outcome.samples[0].answer is not None
    assert outcome.samples[0].answer.output == "[math_factorial(n=5)]"


def test_case_without_a_recorded_answer_is_an_infrastructure_error(tmp_path: Path) -> None:
    results = write_lines(tmp_path / "answers.jsonl", [{"id": "other", "result": "x"}])
    [outcome] = replay(results, [make_case("simple_python_0", "q")])
    assert outcome.samples[0].infra_error == "no recorded answer for simple_python_0"


def test_malformed_result_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text('{"id": "a", "result": 1}\nnot json\n')
    with pytest.raises(InputError, match=r"answers.jsonl:2"):
        ReplayBackend.from_path(str(path), mode=Mode.FC)

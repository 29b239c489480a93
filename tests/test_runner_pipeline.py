"""A whole run through the Python API: cases in, scored report out."""

from __future__ import annotations

from pathlib import Path

from bfcl_action.models import Mode, TestCase
from bfcl_action.runner.pipeline import RunOptions, run_evaluation
from tests.runner_helpers import make_case, options, script, server, toy_judge
from tests.support.openai_server import OpenAIServer

__all__ = ["server"]


def test_multi_turn_cases_are_left_out_with_a_note(server: OpenAIServer, tmp_path: Path) -> None:
    single = make_case("simple_python_0", script("add", a=1), answer=[{"add": {"a": [1]}}])
    multi = TestCase.model_validate(
        {
            "id": "multi_turn_base_0",
            "category": "multi_turn_base",
            "question": [[{"role": "user", "content": "a"}], [{"role": "user", "content": "b"}]],
        }
    )
    report, stats = run_evaluation(
        [single, multi],
        RunOptions(backend=options(server), cache_dir=tmp_path),
        judge=toy_judge,
    )
    assert [r.id for r in report.results] == ["simple_python_0"]
    assert report.results[0].valid
    assert any("multi_turn_base_0" in n and "not run" in n for n in report.notes)
    assert stats.requests == 1


def test_report_records_model_mode_shard_and_comparable_settings(
    server: OpenAIServer,
) -> None:
    case = make_case("simple_python_0", script("add", a=1), answer=[{"add": {"a": [1]}}])
    report, _ = run_evaluation(
        [case],
        RunOptions(backend=options(server, Mode.PROMPT), shard="2/3", datasets=["own:x"]),
        judge=toy_judge,
    )
    assert (report.model, report.mode, report.shard) == ("test-model", Mode.PROMPT, "2/3")
    assert report.settings == {"temperature": 0.001}
    assert report.datasets == ["own:x"]

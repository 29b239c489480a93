"""A whole run through the Python API: cases in, scored report out."""

from __future__ import annotations

from bfcl_action.core.records import Mode
from bfcl_action.runner.pipeline import RunOptions, run_evaluation
from tests.support.openai_server import OpenAIServer
from tests.support.runner import make_case, options, script, toy_judge


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

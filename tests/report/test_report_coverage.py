"""The PR comment names the tools no own case expects, with the command that drafts some."""

from __future__ import annotations

from bfcl_action.compare.runs import compare_runs
from bfcl_action.core.records import CaseResult, RunReport
from bfcl_action.report import render_comment
from bfcl_action.report.coverage import tools_without_cases
from bfcl_action.settings.thresholds import Thresholds


def report(*results: CaseResult) -> RunReport:
    return RunReport(model="m", results=list(results))


OWN = CaseResult(
    id="a", category="own_simple", valid=True, expected=[{"get_weather": {"city": ["Oslo"]}}]
)
IRRELEVANT = CaseResult(id="b", category="own_irrelevance", valid=True, expected=[])


def test_tools_no_own_case_expects_are_uncovered() -> None:
    run = report(OWN, IRRELEVANT)
    assert tools_without_cases(["get_weather", "get_uv", "send_alert"], run) == [
        "get_uv",
        "send_alert",
    ]


def test_a_run_without_own_cases_reports_no_gap() -> None:
    official = CaseResult(id="simple_python_1", category="simple_python", valid=True)
    assert tools_without_cases(["get_uv"], report(official)) == []


def test_the_comment_names_them_with_the_generate_command() -> None:
    run = report(OWN)
    comparison = compare_runs(None, run, Thresholds())
    body = render_comment(comparison, uncovered_tools=["get_uv", "send_alert"])
    assert "2 tool(s) have no own case" in body
    assert "`bfcl-action generate --tools get_uv,send_alert`" in body
    assert "no own case" not in render_comment(comparison)

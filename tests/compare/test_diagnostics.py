"""Per-tool diagnostics: each own tool's cases, pass rates and dominant failure, and the
PR's false-call / missed-call trade-off."""

from __future__ import annotations

from typing import Any

from bfcl_action.compare.diagnostics import argument_faults, call_balance, diagnose_tools
from bfcl_action.compare.runs import compare_runs
from bfcl_action.core.records import Call, CaseResult, RunReport
from bfcl_action.report import render_comment
from bfcl_action.results.digest import FAIL, PASS
from tests.support.reports import make_report


def result(
    case_id: str,
    category: str,
    expected: list[dict[str, Any]],
    called: list[tuple[str, dict[str, Any]]],
    valid: bool,
    offered: tuple[str, ...] = ("get_weather", "get_forecast"),
) -> CaseResult:
    return CaseResult(
        id=case_id,
        category=category,
        suite=category,
        valid=valid,
        decoded=[Call(name=n, arguments=a) for n, a in called],
        expected=expected,
        functions=list(offered),
    )


WEATHER = {"get_weather": {"city": ["Paris", "paris, fr"], "unit": ["", "c"]}}
HEAD = [
    result("a", "own_simple", [WEATHER], [("get_weather", {"city": "Paris"})], True),
    result("b", "own_multiple", [WEATHER], [("get_forecast", {"city": "Paris"})], False),
    result("c", "own_multiple", [WEATHER], [("get_forecast", {"city": "Paris"})], False),
    result("d", "own_simple", [WEATHER], [("get_weather", {"city": "Rome"})], False),
    result("e", "own_simple", [WEATHER], [("get_weather", {"city": 3})], False),
    result("f", "own_simple", [WEATHER], [], False),
    result("g", "own_irrelevance", [], [("get_forecast", {"city": "Oslo"})], False),
    result("h", "own_irrelevance", [], [], True),
    result(
        "k4", "own_distractors", [WEATHER], [("get_weather", {"city": "Paris"})], True,
        offered=("get_weather", "pool_fn"),
    ),
]  # fmt: skip


def test_argument_faults_name_wrong_values_types_missing_and_unexpected() -> None:
    options = {"city": ["Paris"], "days": [3], "unit": ["", "c"]}
    assert argument_faults({"city": "PARIS", "days": 3}, options) == {}
    assert argument_faults({"city": "Rome", "days": "3", "x": 1}, options) == {
        "city": "wrong value",
        "days": "wrong type",
        "x": "unexpected",
    }
    assert argument_faults({"days": 3}, options) == {"city": "missing"}


def test_each_tool_counts_its_cases_and_its_dominant_failure() -> None:
    tools = {t.name: t for t in diagnose_tools(HEAD, None)}
    assert set(tools) == {"get_weather", "get_forecast"}  # pool functions are not yours
    weather = tools["get_weather"]
    counts = (weather.offered, weather.expected, weather.head_passed, weather.compared)
    assert counts == (9, 7, 2, 7)
    assert weather.chose_instead == {"get_forecast": 2}
    assert weather.not_called == 1
    assert weather.parameters[0].parameter == "city"
    assert weather.parameters[0].counts == {"wrong type": 1, "wrong value": 1}
    assert weather.dominant_failure() == "chose get_forecast instead (2)"
    forecast = tools["get_forecast"]
    assert forecast.false_calls == 1
    assert forecast.picked_over == {"get_weather": 2}
    assert forecast.dominant_failure() == "called instead of get_weather (2)"


def test_base_pass_rates_come_from_the_base_outcomes_of_the_same_cases() -> None:
    base = {i: PASS for i in "abcdefgh"} | {"k4": FAIL}
    (weather,) = [t for t in diagnose_tools(HEAD, base) if t.name == "get_weather"]
    assert (weather.base_passed, weather.head_passed, weather.compared) == (6, 2, 7)


def test_the_trade_off_counts_false_calls_and_missed_calls() -> None:
    base_outcomes = {r.id: PASS for r in HEAD}
    base = [r.model_copy(update={"decoded": r.decoded or [Call(name="x")]}) for r in HEAD]
    balance = call_balance(HEAD, base, base_outcomes)
    assert (balance.no_call_cases, balance.false_calls_base, balance.false_calls_head) == (2, 0, 1)
    assert (balance.call_cases, balance.missed_calls_base, balance.missed_calls_head) == (7, 0, 1)
    assert balance.trade_off() == "more false calls and missed calls"


def test_the_comment_shows_the_tool_table_and_the_trade_off() -> None:
    head = RunReport(results=HEAD, model="m", mode="fc")
    text = render_comment(compare_runs(make_report({}, model="m"), head))
    assert "<summary>Per-tool diagnostics (2 tools, 2 with failures)</summary>" in text
    assert "| `get_weather` | 9 | 7 | 2 of 7 | chose get\\_forecast instead (2) |" in text
    assert "Calls: **1** false call on 2 questions that need none" in text

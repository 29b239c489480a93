"""Verdicts: what counts as a regression, an improvement, or no news."""

from bfcl_action.compare.impact import ToolChange, describe_tool_changes
from bfcl_action.compare.runs import (
    Verdict,
    compare_runs,
    format_expected,
)
from bfcl_action.core.records import FunctionDoc, Message, RunReport, TestCase
from bfcl_action.results.scoring import attach_case_context
from bfcl_action.settings.thresholds import Thresholds
from tests.support.reports import make_report, make_result


def _suite(comparison, name):  # type: ignore[no-untyped-def]
    return next(s for s in comparison.suites if s.suite == name)


def test_significant_drop_beyond_allowed_points_is_a_regression() -> None:
    base = make_report({"simple_python": "1" * 40})
    head = make_report({"simple_python": "1" * 30 + "0" * 10})
    comparison = compare_runs(base, head)
    row = _suite(comparison, "simple_python")
    assert row.verdict is Verdict.REGRESSION
    assert row.paired is not None and row.paired.p_value == 2 / 2**10
    assert comparison.verdict is Verdict.REGRESSION and comparison.exit_code == 1


def test_drop_that_is_not_significant_is_unchanged() -> None:
    base = make_report({"simple_python": "1" * 16 + "0" * 4})
    head = make_report({"simple_python": "1" * 15 + "0" * 5})
    row = _suite(compare_runs(base, head), "simple_python")
    assert row.delta_points == -5.0
    assert not row.significant and row.verdict is Verdict.UNCHANGED


def test_significant_drop_within_allowed_points_is_unchanged() -> None:
    base = make_report({"simple_python": "1" * 40})
    head = make_report({"simple_python": "1" * 30 + "0" * 10})
    thresholds = Thresholds(categories={"simple_python": {"max_drop": 30}})
    row = _suite(compare_runs(base, head, thresholds), "simple_python")
    assert row.significant and row.verdict is Verdict.UNCHANGED


def test_per_category_threshold_is_found_by_category_name() -> None:
    assert (
        Thresholds(categories={"own_simple": {"max_drop": 7}}).max_drop_for("mine", "own_simple")
        == 7
    )


def test_significant_rise_is_an_improvement() -> None:
    base = make_report({"simple_python": "0" * 12})
    head = make_report({"simple_python": "1" * 12})
    comparison = compare_runs(base, head)
    assert comparison.verdict is Verdict.IMPROVEMENT and comparison.exit_code == 0


def test_breached_minimum_is_a_regression_without_any_drop() -> None:
    report = make_report({"simple_python": "1100"})
    comparison = compare_runs(
        report, report, Thresholds(categories={"simple_python": {"min_score": 60}})
    )
    row = _suite(comparison, "simple_python")
    assert row.verdict is Verdict.REGRESSION
    assert "below the minimum 60" in row.reasons[0]


def test_global_minimum_applies_to_the_overall_score_even_on_a_first_run() -> None:
    head = make_report({"simple_python": "1100"})
    comparison = compare_runs(None, head, Thresholds(min_score=80))
    assert comparison.overall.verdict is Verdict.REGRESSION
    assert comparison.exit_code == 1


def test_informational_mode_never_fails() -> None:
    base = make_report({"simple_python": "1" * 40})
    head = make_report({"simple_python": "0" * 40})
    comparison = compare_runs(base, head, Thresholds(informational=True))
    assert comparison.verdict is Verdict.REGRESSION
    assert not comparison.fails and comparison.exit_code == 0


def test_first_run_has_scores_and_no_verdict() -> None:
    comparison = compare_runs(None, make_report({"simple_python": "10"}))
    assert comparison.verdict is Verdict.NO_BASELINE
    assert _suite(comparison, "simple_python").head.accuracy == 0.5  # type: ignore[union-attr]


def test_different_model_and_settings_are_listed_and_not_compared() -> None:
    base = make_report({"simple_python": "1" * 40}, model="a", settings={"temperature": 0})
    head = make_report({"simple_python": "0" * 40}, model="b", settings={"temperature": 0.7})
    comparison = compare_runs(base, head)
    assert not comparison.comparable
    assert [d.field for d in comparison.differences] == ["model", "settings.temperature"]
    assert comparison.verdict is Verdict.INCOMPARABLE and comparison.exit_code == 0
    assert all(s.delta_points is None for s in comparison.suites)


def test_changed_case_set_is_compared_on_common_cases() -> None:
    base = make_report({"simple_python": "1" * 20})
    head = make_report({"simple_python": "1" * 20 + "0" * 5})
    row = _suite(compare_runs(base, head), "simple_python")
    assert row.paired is not None and row.paired.n == 20
    assert row.delta_points == 0.0 and row.only_in_head == 5
    assert "both runs answered" in row.notes[0]


def test_infrastructure_errors_are_listed_and_never_regressions() -> None:
    base = make_report({"simple_python": "1" * 20})
    head = make_report({"simple_python": "1" * 10 + "e" * 10})
    comparison = compare_runs(base, head)
    row = _suite(comparison, "simple_python")
    assert row.verdict is Verdict.UNCHANGED and row.paired.n == 10  # type: ignore[union-attr]
    assert len(comparison.infra_errors) == 10
    assert comparison.infra_errors[0].message == "timeout after 3 retries"


def test_new_and_removed_suites_are_labelled() -> None:
    base = make_report({"simple_python": "1", "multiple": "1"})
    head = make_report({"simple_python": "1", "live_simple": "1"})
    comparison = compare_runs(base, head)
    assert _suite(comparison, "multiple").verdict is Verdict.REMOVED
    assert _suite(comparison, "live_simple").verdict is Verdict.NEW


def test_flipped_case_carries_its_reason() -> None:
    base = make_report({"simple_python": "1"})
    head = make_report({"simple_python": "0"})
    (flip,) = compare_runs(base, head).flipped
    assert flip.direction == "newly_failing"
    assert flip.error_type == "value_error:others"
    assert flip.expected == "get_value(x=1)" and flip.got == "get_value(x=2)"


def test_changed_tools_used_by_newly_failing_cases_come_first_with_those_cases() -> None:
    base = make_report({"simple_python": "1"})
    head = make_report({"simple_python": "0"})
    changes = [ToolChange(name="get_value", summary="x is now a string"), ToolChange(name="other")]
    comparison = compare_runs(base, head, changed_tools=changes)
    assert [t.change.name for t in comparison.changed_tools] == ["get_value", "other"]
    assert comparison.changed_tools[0].cases == ["simple_python_0"]
    assert comparison.changed_tools[1].cases == []
    assert comparison.uninvolved_tool_changes == 1


def test_case_context_is_copied_onto_results() -> None:
    case = TestCase(
        id="c1",
        category="simple_python",
        question=[[Message(role="user", content="Weather in Paris?")]],
        functions=[FunctionDoc(name="weather"), FunctionDoc(name="time")],
        possible_answer=[{"weather": {"city": ["Paris"], "unit": ["", "c"]}}],
    )
    report = RunReport(results=[make_result("c1", "simple_python", "0")])
    (result,) = attach_case_context(report, [case]).results
    assert result.question == "Weather in Paris?"
    assert result.functions == ["weather", "time"]
    assert format_expected(result.expected or []) == 'weather(city="Paris", unit=omitted | "c")'


def test_thresholds_are_found_by_suite_then_category_then_group() -> None:
    t = Thresholds(
        categories={
            "live": {"max_drop": 9},
            "live_simple": {"max_drop": 5},
            "mine": {"max_drop": 1},
        }
    )
    assert t.max_drop_for("mine", "live_simple") == 1
    assert t.max_drop_for("live@2026-W48/live_simple", "live_simple") == 5
    assert t.max_drop_for("x", "live_multiple") == 9
    assert t.max_drop_for("x", "simple_python") == t.max_drop


def test_global_minimum_is_also_every_suites_floor() -> None:
    report = make_report({"simple_python": "1111", "live_simple": "1100"})
    comparison = compare_runs(report, report, Thresholds(min_score=60))
    assert _suite(comparison, "live_simple").verdict is Verdict.REGRESSION
    assert _suite(comparison, "simple_python").verdict is Verdict.UNCHANGED


def test_per_suite_alpha_decides_significance() -> None:
    base = make_report({"simple_python": "1" * 40})
    head = make_report({"simple_python": "1" * 30 + "0" * 10})
    strict = Thresholds(categories={"simple_python": {"alpha": 0.001}})
    assert _suite(compare_runs(base, head, strict), "simple_python").verdict is Verdict.UNCHANGED


def test_thresholds_from_bfcl_yml_shape() -> None:
    section = {
        "max_drop": 3,
        "alpha": 0.01,
        "min_score": 50,
        "categories": {"own_irrelevance": {"min_score": 90}, "live": {"max_drop": 5}},
    }
    t = Thresholds.model_validate(section)
    assert (t.max_drop, t.alpha, t.min_score) == (3, 0.01, 50)
    assert t.min_score_for("own_irrelevance", "own_irrelevance") == 90
    assert t.max_drop_for("live_simple", "live_simple") == 5


def test_tool_changes_are_described_by_what_changed() -> None:
    def fn(desc: str, props: dict[str, object], required: list[str]) -> FunctionDoc:
        return FunctionDoc(
            name="get_forecast",
            description=desc,
            parameters={"type": "dict", "properties": props, "required": required},
        )

    before = [
        fn("Forecast for a city.", {"city": {"type": "string"}}, ["city"]),
        FunctionDoc(name="gone"),
    ]
    after = [
        fn(
            "Forecast.",
            {"city": {"type": "string", "description": "x"}, "days": {"type": "integer"}},
            [],
        ),
        FunctionDoc(name="new"),
    ]
    changes = {c.name: c for c in describe_tool_changes(before, after)}
    assert changes["gone"].kind == "removed" and changes["new"].kind == "added"
    assert changes["get_forecast"].summary == (
        "description changed; city re-described; city now optional; days added"
    )
    fields = [(f.path, f.kind) for f in changes["get_forecast"].fields]
    assert fields == [
        ("description", "description"),
        ("parameters.city", "re-described"),
        ("parameters.city", "required"),
        ("parameters.days", "added"),
    ]
    words = changes["get_forecast"].fields[0].words
    assert [(w.op, w.text) for w in words] == [
        ("removed", "Forecast for a city."),
        ("added", "Forecast."),
    ]

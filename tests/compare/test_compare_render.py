"""Renderers other than the comment: job summary, JSON, JUnit XML, SVG charts."""

import json
import xml.etree.ElementTree as ET

import pytest

from bfcl_action.compare.runs import compare_runs
from bfcl_action.core.records import CaseResult
from bfcl_action.report import (
    render_comment,
    render_history_svg,
    render_json,
    render_junit,
    render_summary,
    render_tools_svg,
    tool_count_curve,
)
from bfcl_action.results.digest import make_digest, parse_digest
from tests.support.reports import distractor_report, make_report, make_result

SVG = "{http://www.w3.org/2000/svg}"


def _regression():  # type: ignore[no-untyped-def]
    base = make_report({"simple_python": "1" * 40})
    head = make_report({"simple_python": "1" * 20 + "0" * 19 + "e"})
    return base, head, compare_runs(base, head)


def test_job_summary_shows_every_flip_the_comment_may_cut() -> None:
    _, _, comparison = _regression()
    comment = render_comment(comparison, max_chars=2500)
    summary = render_summary(comparison)
    assert len(comment) <= 2500 and "not shown" in comment
    assert summary.count("newly failing `") == 19 and "not shown" not in summary


def test_job_summary_respects_its_byte_cap() -> None:
    _, _, comparison = _regression()
    assert len(render_summary(comparison, max_bytes=3000).encode("utf-8")) <= 3000


def test_comment_cut_even_when_the_table_alone_is_too_long() -> None:
    base = make_report({f"own_suite_{i}": "1" for i in range(300)})
    head = make_report({f"own_suite_{i}": "0" for i in range(300)})
    text = render_comment(compare_runs(base, head), max_chars=4000)
    assert len(text) <= 4000 and "suites not shown" in text


def test_json_carries_verdict_and_failure_flag() -> None:
    _, _, comparison = _regression()
    data = json.loads(render_json(comparison))
    assert data["verdict"] == "regression" and data["fails"] is True
    assert data["suites"][0]["paired"]["newly_failing"] == 19


def test_junit_has_one_testcase_per_case_with_failures_and_errors() -> None:
    _, head, _ = _regression()
    root = ET.fromstring(render_junit(head))
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 40
    assert root.get("tests") == "40" and root.get("failures") == "19" and root.get("errors") == "1"
    failure = root.find("./testsuite/testcase/failure")
    assert failure is not None and failure.get("type") == "value_error:others"
    assert "expected: get_value(x=1)" in (failure.text or "")


def test_junit_survives_characters_xml_cannot_hold() -> None:
    report = make_report({}, results=[make_result("c\x00", "s", "0", error="bad \x1b[31m</x>")])
    root = ET.fromstring(render_junit(report))
    assert root.find("./testsuite/testcase").get("name") == "c"  # type: ignore[union-attr]


def test_history_chart_is_svg_with_a_line_per_suite_and_overall() -> None:
    runs = [
        make_report({"simple_python": "1100", "live_simple": "10"}, created_at=f"2026-11-0{i}")
        for i in range(1, 5)
    ]
    svg = render_history_svg(runs)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    labels = [t.text for t in root.iter(f"{SVG}text")]
    assert {"live_simple", "simple_python", "overall", "2026-11-01"} <= set(labels)
    assert len(root.findall(f".//{SVG}polyline")) == 3


def test_history_chart_escapes_suite_names() -> None:
    svg = render_history_svg([make_report({"<b>&\x01": "1"})])
    assert any(t.text == "<b>&" for t in ET.fromstring(svg).iter(f"{SVG}text"))


def test_tools_chart_plots_accuracy_by_number_of_offered_tools() -> None:
    results = [
        make_result(f"d{n}_{i}", "own_distractors", "1" if i < 10 - n else "0",
                    functions=[f"f{k}" for k in range(n)])
        for n in (1, 4, 8)
        for i in range(10)
    ]  # fmt: skip
    report = make_report({}, results=results)
    assert tool_count_curve(report) == [(1, 9, 10), (4, 6, 10), (8, 2, 10)]
    root = ET.fromstring(render_tools_svg(report))
    points = [c for c in root.iter(f"{SVG}circle") if "tools:" in (c.findtext(f"{SVG}title") or "")]
    assert len(points) == 3
    assert "8 tools: 20.0% (2/10)" in [t.text for t in root.iter(f"{SVG}title")]


def test_tools_chart_draws_one_distractor_curve_per_model() -> None:
    root = ET.fromstring(
        render_tools_svg(
            [("steady", distractor_report(drop=0)), ("fragile", distractor_report(drop=4))]
        )
    )
    titles = [t.text or "" for t in root.iter(f"{SVG}title")]
    assert "steady, 8 tools: 100.0% (10/10)" in titles
    assert "fragile, 8 tools: 20.0% (2/10)" in titles
    assert {"steady", "fragile"} <= set(titles)  # the legend names both models


def test_tools_chart_without_data_says_so() -> None:
    root = ET.fromstring(render_tools_svg(make_report({"simple_python": "1"})))
    assert "no data" in [t.text for t in root.iter(f"{SVG}text")]


@pytest.mark.parametrize("cap", [400, 1500, 6000])
def test_comment_never_exceeds_its_cap(cap: int) -> None:
    base = make_report({f"own_suite_{i}": "1" * 12 for i in range(40)})
    head = make_report({f"own_suite_{i}": "0" * 12 for i in range(40)})
    text = render_comment(compare_runs(base, head), max_chars=cap)
    assert len(text) <= cap
    assert "full report" in text or "Truncated" in text


def test_history_chart_accepts_digests_of_earlier_runs() -> None:
    old = parse_digest(make_digest(make_report({"simple_python": "10"}, created_at="2026-11-01")))
    new = make_report({"simple_python": "11"}, created_at="2026-11-08")
    root = ET.fromstring(render_history_svg([old, new]))
    tips = [t.text for t in root.iter(f"{SVG}title")]
    assert "simple_python @ 2026-11-01: 50.0% (1/2)" in tips
    assert "simple_python @ 2026-11-08: 100.0% (2/2)" in tips


def test_tools_chart_falls_back_to_the_k_of_distractor_suites() -> None:
    def result(k: int, i: int) -> CaseResult:
        label = f"own_distractors_k{k}"
        made = make_result(f"{label}__c{i}", label, "1" if i < 4 - k // 8 else "0")
        return made.model_copy(update={"category": "own_distractors", "functions": None})

    results = [result(k, i) for k in (0, 4, 16, 32) for i in range(4)]
    report = make_report({}, results=results)
    assert tool_count_curve(report) == [(0, 4, 4), (4, 4, 4), (16, 2, 4), (32, 0, 4)]
    root = ET.fromstring(render_tools_svg(report))
    assert "distractor tools added" in [t.text for t in root.iter(f"{SVG}text")]


def test_history_series_that_coincide_are_told_apart() -> None:
    runs = [
        make_report({"simple_python": "1100", "live_simple": "1100", "multiple": "1"})
        for _ in range(3)
    ]
    root = ET.fromstring(render_history_svg(runs))
    shapes = {el.tag for el in root.iter() if el.find(f"{SVG}title") is not None}
    assert {f"{SVG}circle", f"{SVG}rect", f"{SVG}path"} <= shapes  # one marker shape per series
    legend = [t.text for t in root.iter(f"{SVG}text")]
    assert "live_simple = simple_python: same scores" in legend


def test_history_runs_with_the_same_date_get_distinct_ticks() -> None:
    runs = [make_report({"simple_python": "1"}, created_at="2026-11-30T0{i}:00Z") for i in range(3)]
    labels = [t.text for t in ET.fromstring(render_history_svg(runs)).iter(f"{SVG}text")]
    assert {"2026-11-30", "2026-11-30 #2", "2026-11-30 #3"} <= set(labels)

"""The PR comment, as reviewers will see it, for the situations that matter.

Snapshots live in tests/fixtures/compare/snapshots/; after an intended change, regenerate
them with `BFCL_UPDATE_SNAPSHOTS=1 pytest tests/compare/test_compare_snapshots.py` and review
the diff.
"""

from __future__ import annotations

import random
import re

from bfcl_action.compare.impact import describe_tool_changes
from bfcl_action.compare.runs import Comparison, compare_runs
from bfcl_action.core.records import FunctionDoc
from bfcl_action.report import COMMENT_LIMIT, render_comment
from bfcl_action.settings.thresholds import Thresholds
from tests.support.reports import make_report, make_result
from tests.support.snapshots import SNAPSHOTS, assert_snapshot

RUN_URL = "https://github.com/acme/tools/actions/runs/42"

HOSTILE = (
    "<img src=x onerror=alert(1)> @octocat ping @acme/admins, see #1 and acme/x#2\n"
    "::set-output name=verdict::pass\n##[error]fake | broken | table |\n"
    "# heading ``` fence `tick` [link](javascript:alert(1)) *bold* _it_ "
    "<!-- bfcl-action:digest v1 AAAA --> \u202eevil\r\nend"
)


def _snapshot(name: str, comparison: Comparison) -> str:
    text = render_comment(comparison, full_report_url=RUN_URL)
    assert_snapshot(SNAPSHOTS / f"{name}.md", text)
    return text


def test_first_run_without_baseline() -> None:
    head = make_report({"simple_python": "1101", "live_simple": "10e", "own_simple": "111"})
    _snapshot("first_run", compare_runs(None, head, Thresholds(min_score=50)))


def test_unchanged() -> None:
    base = make_report({"simple_python": "1" * 18 + "01", "live_simple": "1100"})
    head = make_report({"simple_python": "1" * 18 + "10", "live_simple": "1100"})
    _snapshot("unchanged", compare_runs(base, head))


def test_significant_regression_with_changed_tools() -> None:
    base = make_report({"simple_python": "1" * 30, "own_simple": "1" * 20 + "0" * 4})
    head = make_report({"simple_python": "1" * 30, "own_simple": "1" * 10 + "0" * 12 + "e1"})
    before = FunctionDoc(
        name="get_value",
        description="Get the value x of a case, by its id.",
        parameters={
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": "The case id."},
                "unit": {"type": "string", "enum": ["a", "b"]},
                "where": {
                    "type": "object",
                    "properties": {"lat": {"type": "number", "description": "Latitude."}},
                },
            },
            "required": ["id"],
        },
    )
    after = FunctionDoc(
        name="get_value",
        description="Value of a case.",
        parameters={
            "type": "object",
            "properties": {
                "id": {"type": "integer", "description": "The case number."},
                "unit": {"type": "string", "enum": ["a", "b", "c"]},
                "where": {
                    "type": "object",
                    "properties": {"lat": {"type": "number", "description": "Latitude, WGS84."}},
                },
                "verbose": {"type": "boolean"},
            },
            "required": ["id", "unit"],
        },
    )
    (change,) = describe_tool_changes([before], [after])
    text = _snapshot("regression", compare_runs(base, head, changed_tools=[change]))
    assert text.startswith("### ❌")


def test_non_significant_dip() -> None:
    base = make_report({"simple_python": "1" * 16 + "0" * 4})
    head = make_report({"simple_python": "1" * 15 + "0" * 5})
    text = _snapshot("dip", compare_runs(base, head))
    assert "within noise — no rule fired" in text.splitlines()[0]  # a dip, not a verdict


def test_incomparable_runs() -> None:
    base = make_report({"simple_python": "1" * 10}, model="model-a", settings={"temperature": 0})
    head = make_report(
        {"simple_python": "0" * 10}, model="model-b", settings={"temperature": 0.7, "top_p": 1}
    )
    text = _snapshot("incomparable", compare_runs(base, head))
    assert "settings.top\\_p" not in text and "`settings.top_p`" in text


def _huge() -> Comparison:
    rng = random.Random(3)
    suites = ["simple_python", "multiple", "parallel", "live_simple", "live_multiple"]
    base = make_report({s: "1" * 1000 for s in suites})
    results = [
        make_result(
            f"{s}_{i}", s, "0" if rng.random() < 0.4 else "1",
            question="Please find the value of a long question " * 12,
        )
        for s in suites
        for i in range(1000)
    ]  # fmt: skip
    return compare_runs(base, make_report({}, results=results))


def test_huge_run_is_cut_at_the_comment_limit_with_a_note() -> None:
    text = _snapshot("huge_cut", _huge())
    assert len(text) <= COMMENT_LIMIT
    assert "flipped cases not shown" in text and RUN_URL in text
    assert text.count("<details>") == text.count("</details>")


def _outside_code(text: str) -> str:
    return re.sub(r"(`+)(.+?)(?<!`)\1(?!`)", "CODE", text)


def test_hostile_strings_are_inert() -> None:
    base = make_report({"simple_python": "1" * 10, "x | y": "1"})
    bad = make_result(
        "simple_python_9", "simple_python", "0", question=HOSTILE, got=HOSTILE, error=HOSTILE
    )
    head = make_report({"simple_python": "1" * 9, "x | y": "0"}, results=[bad])
    head.results[1] = head.results[1].model_copy(update={"infra_error": HOSTILE})
    (change,) = describe_tool_changes(
        [FunctionDoc(name="get_value", description="Get a value.")],
        [
            FunctionDoc(
                name="get_value",
                description=HOSTILE,
                parameters={
                    "type": "object",
                    "properties": {HOSTILE: {"type": HOSTILE, "description": HOSTILE}},
                },
            )
        ],
    )
    text = _snapshot("hostile", compare_runs(base, head, changed_tools=[change]))
    prose = _outside_code(text)
    assert not re.search(r"<(?!/?(details|summary|sub)>)[A-Za-z!/]", prose)
    assert not re.search(r"@(acme|octocat)", prose)
    assert not re.search(r"#\d", prose)
    assert "::" not in text and "##[" not in text and "\u202e" not in text
    assert "<!-- bfcl-action:digest" not in text
    assert "`" not in prose.replace("\\`", "")
    rows = [line for line in text.splitlines() if line.startswith("|")]
    pipes = {len(re.findall(r"(?<!\\)\|", row)) for row in rows}
    assert pipes == {7}, pipes


def test_a_changed_case_set_says_which_cases_are_compared() -> None:
    base = make_report({"own_irrelevance": "1" * 50 + "0" * 4, "own_simple": "1" * 8})
    head_ids = {"own_irrelevance": "1" * 48 + "0" * 6 + "1" * 3, "own_simple": "1" * 7 + "0"}
    head = make_report(head_ids)
    head.results = [r for r in head.results if r.id not in {"own_irrelevance_0"}]
    text = _snapshot("case_set_changed", compare_runs(base, head))
    assert "**Overall on the 61 cases both runs answered: " in text.splitlines()[1]


def _numbers(line: str) -> list[str]:
    return re.findall(r"\d+\.\d", line)


def test_the_headline_shows_the_numbers_of_the_overall_row() -> None:
    """Whatever the case sets and infra errors, the headline's base, head and delta are the
    overall row's, and head minus base is the delta shown."""
    rng = random.Random(14)
    for _ in range(60):
        suites = {}
        for name in ("simple_python", "own_simple", "own_irrelevance"):
            size = rng.randrange(3, 40)
            suites[name] = (
                "".join(rng.choice("1110e") for _ in range(size)),
                "".join(rng.choice("1100e") for _ in range(size + rng.randrange(-2, 3))),
            )
        base = make_report({k: v[0] for k, v in suites.items()})
        head = make_report({k: v[1] for k, v in suites.items()})
        comparison = compare_runs(base, head)
        lines = render_comment(comparison).splitlines()
        overall = next(line for line in lines if line.startswith("| **overall**"))
        cells = overall.split("|")
        table_base, table_head = _numbers(cells[2])[0], _numbers(cells[3])[0]
        delta = cells[4].strip()
        headline = lines[1]
        if comparison.overall.on_subset:
            assert f"{table_base}% → {table_head}%" in headline
        else:
            assert f"**Overall {table_head}%**" in headline and f"base {table_base}%" in headline
        assert f"({delta} points" in headline
        shown = float(table_head) - float(table_base)
        assert abs(shown - float(delta.replace("−", "-").replace("±", ""))) <= 0.11

"""Per-suite accuracy and the leaderboard's summary columns."""

from __future__ import annotations

import pytest

from bfcl_action.core.fingerprint import case_set_hash, config_fingerprint
from bfcl_action.core.records import CaseResult, Mode
from bfcl_action.results.scoring import build_report, score_results, summarize


def _results(category: str, correct: int, total: int, suite: str = "") -> list[CaseResult]:
    return [
        CaseResult(id=f"{category}_{i}", category=category, suite=suite, valid=i < correct)
        for i in range(total)
    ]


ALL_SINGLE_TURN = {
    # category: (correct, total)
    "simple_python": (300, 400),
    "simple_java": (50, 100),
    "simple_javascript": (40, 50),
    "multiple": (180, 200),
    "parallel": (160, 200),
    "parallel_multiple": (150, 200),
    "irrelevance": (200, 240),
    "live_simple": (200, 258),
    "live_multiple": (700, 1053),
    "live_parallel": (8, 16),
    "live_parallel_multiple": (12, 24),
    "live_irrelevance": (800, 884),
    "live_relevance": (12, 16),
}


def _run(spec: dict[str, tuple[int, int]]) -> list[CaseResult]:
    return [r for cat, (ok, n) in spec.items() for r in _results(cat, ok, n)]


def test_accuracy_per_category_excludes_infrastructure_errors() -> None:
    results = _results("multiple", 3, 4)
    results.append(CaseResult(id="multiple_9", category="multiple", valid=False, infra_error="503"))
    score = score_results(results)["multiple"]
    assert (score.correct, score.total, score.infra_errors, score.accuracy) == (3, 4, 1, 0.75)


def test_scores_follow_the_category_table_order_then_other_datasets() -> None:
    results = (
        _results("live_simple", 1, 1, suite="live@2026-W48/live_simple")
        + _results("irrelevance", 1, 1)
        + _results("simple_python", 1, 1)
    )
    assert list(score_results(results)) == [
        "simple_python",
        "irrelevance",
        "live@2026-W48/live_simple",
    ]


def test_numbered_suites_of_one_category_sort_as_numbers() -> None:
    """Distractor suites by their k: 0, 4, 16, 32, as `.bfcl.yml` lists them (not k16 first)."""
    results = [
        r
        for k in (32, 16, 4, 0)
        for r in _results("own_distractors", 1, 1, suite=f"own_distractors_k{k}")
    ]
    assert list(score_results(results)) == [f"own_distractors_k{k}" for k in (0, 4, 16, 32)]


def test_summary_reproduces_the_leaderboard_formulas_on_a_full_run() -> None:
    acc = {c: ok / n for c, (ok, n) in ALL_SINGLE_TURN.items()}
    count = {c: n for c, (_, n) in ALL_SINGLE_TURN.items()}
    simple = (acc["simple_python"] + acc["simple_java"] + acc["simple_javascript"]) / 3
    non_live = (simple + acc["multiple"] + acc["parallel"] + acc["parallel_multiple"]) / 4
    live_cats = ["live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"]
    live = sum(acc[c] * count[c] for c in live_cats) / sum(count[c] for c in live_cats)
    irrelevance = (acc["irrelevance"] + acc["live_irrelevance"]) / 2

    summary = summarize(score_results(_run(ALL_SINGLE_TURN)))

    assert summary["non_live_simple_ast"] == pytest.approx(simple)
    assert summary["non_live_ast"] == pytest.approx(non_live)
    assert summary["live_ast"] == pytest.approx(live)
    assert summary["irrelevance"] == pytest.approx(irrelevance)
    assert summary["relevance"] == pytest.approx(acc["live_relevance"])
    assert summary["overall"] == pytest.approx((non_live + live + irrelevance) / 3)
    assert summary["multi_turn"] is None
    assert summary["own"] is None


def test_partial_run_summarises_only_what_ran() -> None:
    summary = summarize(score_results(_run({"simple_python": (3, 4), "parallel": (1, 4)})))
    assert summary["non_live_simple_ast"] == 0.75
    assert summary["non_live_ast"] == pytest.approx((0.75 + 0.25) / 2)
    assert summary["overall"] == summary["non_live_ast"]
    assert summary["live_ast"] is None
    assert summary["irrelevance"] is None


def test_relevance_alone_gives_no_overall() -> None:
    summary = summarize(score_results(_run({"live_relevance": (1, 2)})))
    assert summary["relevance"] == 0.5
    assert summary["overall"] is None


def test_category_with_only_infrastructure_errors_counts_as_not_run() -> None:
    results = [CaseResult(id="multiple_0", category="multiple", valid=False, infra_error="x")]
    results += _results("parallel", 1, 2)
    assert summarize(score_results(results))["non_live_ast"] == 0.5


def test_own_suites_are_pooled_and_weighted_like_a_single_turn_group() -> None:
    results = _run({"own_simple": (1, 1), "own_irrelevance": (0, 3), "multiple": (1, 1)})
    summary = summarize(score_results(results))
    assert summary["own"] == 0.25
    assert summary["overall"] == pytest.approx((0.25 + 1.0) / 2)


def test_other_datasets_get_their_own_prefixed_columns() -> None:
    results = _results("live_simple", 1, 2, suite="live@2026-W48/live_simple") + _results(
        "live_simple", 2, 2
    )
    summary = summarize(score_results(results))
    assert summary["live_ast"] == 1.0
    assert summary["live@2026-W48/live_ast"] == 0.5
    assert summary["live@2026-W48/overall"] == 0.5


def test_report_carries_fingerprint_case_set_scores_and_summary() -> None:
    results = _run({"simple_python": (1, 2)})
    report = build_report(
        results,
        model="m",
        mode="prompt",
        datasets=["bfcl@2026.3.23"],
        settings={"temperature": 0},
        notes=["partial"],
        created_at="2026-11-30T00:00:00+00:00",
    )
    assert report.mode is Mode.PROMPT
    assert report.fingerprint == config_fingerprint(
        model="m", mode="prompt", datasets=["bfcl@2026.3.23"], settings={"temperature": 0}
    )
    assert report.case_set == case_set_hash(["simple_python_0", "simple_python_1"])
    assert report.categories["simple_python"].accuracy == 0.5
    assert report.summary["overall"] == 0.5
    assert report.notes == ["partial"]
    assert report.tool_version


def test_a_live_only_run_also_fills_the_unprefixed_columns() -> None:
    results = _results("live_simple", 1, 4, suite="live@2026-W48/live_simple") + _results(
        "live_irrelevance", 1, 1, suite="live@2026-W48/live_irrelevance"
    )
    summary = summarize(score_results(results))
    assert summary["live@2026-W48/overall"] == pytest.approx((0.25 + 1.0) / 2)
    assert summary["overall"] == summary["live@2026-W48/overall"]

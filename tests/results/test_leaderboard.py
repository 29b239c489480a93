"""The leaderboard's tables as bfcl-eval computes them: missing categories count as 0."""

from __future__ import annotations

import pytest

from bfcl_action.core.categories import CATEGORIES
from bfcl_action.core.records import CaseResult, CategoryScore
from bfcl_action.results.leaderboard import (
    LEADERBOARD_CATEGORIES,
    OVERALL_ACC,
    compute_leaderboard,
    latency_stats,
)

SIZES = {c: 100 for c in LEADERBOARD_CATEGORIES} | {"live_simple": 258, "live_multiple": 1053}


def _score(category: str, correct: int, total: int) -> CategoryScore:
    return CategoryScore(
        suite=category, category=category, correct=correct, total=total, accuracy=correct / total
    )


def test_every_scored_official_category_is_on_the_leaderboard() -> None:
    official = {n for n, c in CATEGORIES.items() if c.official and not c.prompt_variants}
    assert set(LEADERBOARD_CATEGORIES) == official


def test_a_lone_multi_turn_category_is_a_quarter_of_multi_turn_and_weighs_30_percent() -> None:
    board = compute_leaderboard({"multi_turn_base": _score("multi_turn_base", 50, 100)}, SIZES)
    assert board.multi_turn["Multi Turn Overall Acc"] == pytest.approx(0.125)
    assert board.overall["Multi Turn Acc"] == pytest.approx(0.125)
    assert board.overall[OVERALL_ACC] == pytest.approx(0.3 * 0.125)
    assert board.overall["Multi Turn Miss Func"] is None  # N/A


def test_a_missing_live_category_keeps_its_dataset_size_as_weight() -> None:
    board = compute_leaderboard({"live_simple": _score("live_simple", 258, 258)}, SIZES)
    # live_simple right, live_multiple (1,053 entries) and two more missing as 0
    assert board.overall["Live Acc"] == pytest.approx(258 / (258 + 1053 + 100 + 100))
    assert board.live["AST Summary"] is None
    assert board.live["Live Overall Acc"] == board.overall["Live Acc"]


def test_combined_columns_show_na_unless_every_part_ran() -> None:
    scores = {c: _score(c, 1, 2) for c in ("simple_python", "simple_java", "simple_javascript")}
    board = compute_leaderboard(scores, SIZES)
    assert board.non_live["Simple AST"] == pytest.approx(0.5)
    assert board.non_live["AST Summary"] is None
    assert board.non_live["Non-Live Overall Acc"] == pytest.approx(0.5 / 4)


def test_a_full_run_has_no_na_and_the_documented_weights() -> None:
    scores = {c: _score(c, 1, 1) for c in LEADERBOARD_CATEGORIES}
    board = compute_leaderboard(scores, SIZES)
    assert board.missing == []
    assert all(v is not None for v in board.overall.values())
    assert board.overall[OVERALL_ACC] == pytest.approx(1.0)
    scores["memory_kv"] = _score("memory_kv", 0, 1)
    board = compute_leaderboard(scores, SIZES)
    # memory is a third lower, memory is half of agentic, agentic weighs 40%
    assert board.overall[OVERALL_ACC] == pytest.approx(1 - 0.4 * 0.5 / 3)


def test_latency_columns_follow_bfcl_eval_rounding_and_skip_zero() -> None:
    results = [
        CaseResult(id=str(i), category="simple_python", valid=True, latency_s=v)
        for i, v in enumerate([0.0, 1.0, 2.0, 3.0, 4.0])
    ]
    stats = latency_stats(results)
    assert stats is not None
    assert (stats.mean, stats.std, stats.p95) == (2.5, 1.29, 3.85)

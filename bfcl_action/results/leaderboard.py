"""BFCL's leaderboard tables for one model, computed the way bfcl-eval computes them.

A team that tracks a model on the official sets compares our numbers with the leaderboard's,
so these follow bfcl-eval's `generate_leaderboard_csv` rule for rule (written from its
documented behaviour, see ../shared/BFCL_NOTES.md):

- a category that did not run counts as accuracy 0 *with its full dataset size* (that size
  weighs it in the count-weighted Live column), and its cell shows N/A;
- a combined column shows N/A when any category under it is missing, except the columns
  bfcl-eval computes with N/A display switched off ("Non-Live Overall Acc", "Live Acc"/"Live
  Overall Acc", "Multi Turn Acc", "Agentic Overall Acc" and "Overall Acc"), which always show
  the number with missing parts as 0;
- Overall Acc = 10% Non-Live + 10% Live + 10% Irrelevance + 30% Multi Turn + 40% Agentic,
  where Agentic is the mean of Web Search (mean of base, no snippet) and Memory (mean of kv,
  vector, recursive summarisation).

`bfcl_action.results.scoring.summarize` keeps a different number under the key `overall`: the same
weights renormalised over the groups that ran ("overall of what ran"), which is what a PR
check wants. Every place that shows either says which one it is.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from bfcl_action.core.categories import CATEGORIES, FORMAT_SENSITIVITY
from bfcl_action.core.records import CaseResult, CategoryScore, RunReport

NA = "N/A"

OVERALL_ACC = "Overall Acc"
"""The leaderboard's headline column (data_overall.csv)."""


class _Part(BaseModel):
    """bfcl-eval's `{"accuracy", "total_count", "display_accuracy"}` triple."""

    model_config = ConfigDict(frozen=True)

    accuracy: float
    count: int
    na: bool
    """Whether the cell shows N/A (a category under it did not run)."""

    @property
    def cell(self) -> float | None:
        return None if self.na else self.accuracy


def _unweighted(parts: Sequence[_Part], *, na_if_missing: bool = True) -> _Part:
    return _Part(
        accuracy=sum(p.accuracy for p in parts) / len(parts),
        count=sum(p.count for p in parts),
        na=na_if_missing and any(p.na for p in parts),
    )


def _weighted(parts: Sequence[_Part], *, na_if_missing: bool = True) -> _Part:
    count = sum(p.count for p in parts)
    return _Part(
        accuracy=sum(p.accuracy * p.count for p in parts) / count if count else 0.0,
        count=count,
        na=na_if_missing and any(p.na for p in parts),
    )


def _percentage_weighted(parts: Sequence[_Part], weights: Sequence[float]) -> _Part:
    total = sum(weights)
    return _Part(
        accuracy=sum(p.accuracy * w / total for p, w in zip(parts, weights, strict=True)),
        count=sum(p.count for p in parts),
        na=False,
    )


OVERALL_WEIGHTS = {"non_live": 10, "live": 10, "irrelevance": 10, "multi_turn": 30, "agentic": 40}
"""bfcl-eval's weights of the five groups in Overall Acc (percent)."""


class Leaderboard(BaseModel):
    """One model's rows of the leaderboard CSV files: header -> accuracy (None = N/A).

    Keys are bfcl-eval's column headers, so a row can be compared with (or written as) the
    official `data_overall.csv`, `data_non_live.csv`, `data_live.csv`, `data_multi_turn.csv`
    and `data_agentic.csv`. Only accuracy columns are held; rank, model, cost and latency
    are added when the files are written.
    """

    overall: dict[str, float | None]
    non_live: dict[str, float | None]
    live: dict[str, float | None]
    multi_turn: dict[str, float | None]
    agentic: dict[str, float | None]
    missing: list[str]
    """Scored categories of the leaderboard that did not run (each counted as 0)."""

    @property
    def overall_acc(self) -> float:
        value = self.overall[OVERALL_ACC]
        return 0.0 if value is None else value


LEADERBOARD_CATEGORIES = tuple(
    name for name, c in CATEGORIES.items() if c.official and not c.prompt_variants
)
"""Every category the leaderboard scores (format sensitivity is reported, never scored)."""


def compute_leaderboard(
    scores: Mapping[str, CategoryScore], sizes: Mapping[str, int]
) -> Leaderboard:
    """The leaderboard's rows from per-category scores of official data.

    `scores` is keyed by category (suites of other datasets are not the leaderboard's: pass
    only official ones); `sizes` gives each leaderboard category's entry count in the
    dataset, which is the weight a category that did not run keeps (bfcl-eval's rule).
    """

    def part(category: str) -> _Part:
        score = scores.get(category)
        if score is None or score.total == 0:
            return _Part(accuracy=0.0, count=sizes.get(category, 0), na=True)
        return _Part(accuracy=score.accuracy, count=score.total, na=False)

    p = {c: part(c) for c in LEADERBOARD_CATEGORIES}
    simple = _unweighted([p["simple_python"], p["simple_java"], p["simple_javascript"]])
    non_live_parts = [simple, p["multiple"], p["parallel"], p["parallel_multiple"]]
    non_live_summary = _unweighted(non_live_parts)
    non_live_overall = _unweighted(non_live_parts, na_if_missing=False)
    live_parts = [
        p["live_simple"],
        p["live_multiple"],
        p["live_parallel"],
        p["live_parallel_multiple"],
    ]
    live_summary = _weighted(live_parts)
    live_overall = _weighted(live_parts, na_if_missing=False)
    mt_parts = [
        p["multi_turn_base"],
        p["multi_turn_miss_func"],
        p["multi_turn_miss_param"],
        p["multi_turn_long_context"],
    ]
    multi_turn = _unweighted(mt_parts, na_if_missing=False)
    web_search = _unweighted([p["web_search_base"], p["web_search_no_snippet"]])
    memory = _unweighted([p["memory_kv"], p["memory_vector"], p["memory_rec_sum"]])
    agentic = _unweighted([web_search, memory], na_if_missing=False)
    irrelevance = _unweighted([p["irrelevance"], p["live_irrelevance"]])
    relevance = p["live_relevance"]
    total = _percentage_weighted(
        [non_live_overall, live_overall, irrelevance, multi_turn, agentic],
        list(OVERALL_WEIGHTS.values()),
    )
    return Leaderboard(
        overall={
            OVERALL_ACC: total.cell,
            "Non-Live AST Acc": non_live_summary.cell,
            "Non-Live Simple AST": simple.cell,
            "Non-Live Multiple AST": p["multiple"].cell,
            "Non-Live Parallel AST": p["parallel"].cell,
            "Non-Live Parallel Multiple AST": p["parallel_multiple"].cell,
            "Live Acc": live_overall.cell,
            "Live Simple AST": p["live_simple"].cell,
            "Live Multiple AST": p["live_multiple"].cell,
            "Live Parallel AST": p["live_parallel"].cell,
            "Live Parallel Multiple AST": p["live_parallel_multiple"].cell,
            "Multi Turn Acc": multi_turn.cell,
            "Multi Turn Base": p["multi_turn_base"].cell,
            "Multi Turn Miss Func": p["multi_turn_miss_func"].cell,
            "Multi Turn Miss Param": p["multi_turn_miss_param"].cell,
            "Multi Turn Long Context": p["multi_turn_long_context"].cell,
            "Web Search Acc": web_search.cell,
            "Web Search Base": p["web_search_base"].cell,
            "Web Search No Snippet": p["web_search_no_snippet"].cell,
            "Memory Acc": memory.cell,
            "Memory KV": p["memory_kv"].cell,
            "Memory Vector": p["memory_vector"].cell,
            "Memory Recursive Summarization": p["memory_rec_sum"].cell,
            "Relevance Detection": relevance.cell,
            "Irrelevance Detection": irrelevance.cell,
        },
        non_live={
            "Non-Live Overall Acc": non_live_overall.cell,
            "AST Summary": non_live_summary.cell,
            "Simple AST": simple.cell,
            "Python Simple AST": p["simple_python"].cell,
            "Java Simple AST": p["simple_java"].cell,
            "JavaScript Simple AST": p["simple_javascript"].cell,
            "Multiple AST": p["multiple"].cell,
            "Parallel AST": p["parallel"].cell,
            "Parallel Multiple AST": p["parallel_multiple"].cell,
            "Irrelevance Detection": p["irrelevance"].cell,
        },
        live={
            "Live Overall Acc": live_overall.cell,
            "AST Summary": live_summary.cell,
            "Python Simple AST": p["live_simple"].cell,
            "Python Multiple AST": p["live_multiple"].cell,
            "Python Parallel AST": p["live_parallel"].cell,
            "Python Parallel Multiple AST": p["live_parallel_multiple"].cell,
            "Irrelevance Detection": p["live_irrelevance"].cell,
            "Relevance Detection": relevance.cell,
        },
        multi_turn={
            "Multi Turn Overall Acc": multi_turn.cell,
            "Base": p["multi_turn_base"].cell,
            "Miss Func": p["multi_turn_miss_func"].cell,
            "Miss Param": p["multi_turn_miss_param"].cell,
            "Long Context": p["multi_turn_long_context"].cell,
        },
        agentic={
            "Agentic Overall Acc": agentic.cell,
            "Web Search Summary": web_search.cell,
            "Web Search Base": p["web_search_base"].cell,
            "Web Search No Snippet": p["web_search_no_snippet"].cell,
            "Memory Summary": memory.cell,
            "Memory KV": p["memory_kv"].cell,
            "Memory Vector": p["memory_vector"].cell,
            "Memory Recursive Summarization": p["memory_rec_sum"].cell,
        },
        missing=[c for c in LEADERBOARD_CATEGORIES if p[c].na],
    )


class ConfigScore(BaseModel):
    """One prompt configuration's share of the format-sensitivity cases."""

    accuracy: float
    correct_count: int
    total_count: int


class FormatSensitivity(BaseModel):
    """bfcl-eval's format-sensitivity figures: accuracy per prompt configuration, and the
    spread across configurations in percentage points (max minus min, sample variance and
    standard deviation), rounded to 2 places; 0 when fewer than two configurations ran."""

    configs: dict[str, ConfigScore]
    max_delta: float
    variance: float
    std: float


def format_sensitivity_stats(results: Sequence[CaseResult]) -> FormatSensitivity | None:
    """The figures over the format-sensitivity results (None when there are none)."""
    from bfcl_action.checker.variants import variant_of

    counts: dict[str, list[int]] = {}
    for result in results:
        variant = variant_of(result.id) if result.infra_error is None else None
        if variant is None:
            continue
        tally = counts.setdefault(variant[0].key, [0, 0])
        tally[0] += int(result.valid)
        tally[1] += 1
    if not counts:
        return None
    configs = {
        key: ConfigScore(accuracy=c / t, correct_count=c, total_count=t)
        for key, (c, t) in counts.items()
    }
    accuracies = [c.accuracy for c in configs.values()]
    spread = len(accuracies) > 1
    return FormatSensitivity(
        configs=configs,
        max_delta=round((max(accuracies) - min(accuracies)) * 100, 2) if spread else 0.0,
        variance=round(statistics.variance(accuracies) * 100**2, 2) if spread else 0.0,
        std=round(statistics.stdev(accuracies) * 100, 2) if spread else 0.0,
    )


def leaderboard_of(report: RunReport, sizes: Mapping[str, int]) -> Leaderboard | None:
    """The leaderboard's rows for a report that scored official categories (by category
    label, not another dataset's suites), else None. `sizes`: `official.official_sizes`."""
    official = {
        label: score
        for label, score in report.categories.items()
        if label == score.category and score.category in LEADERBOARD_CATEGORIES
    }
    variants = any(s.category == FORMAT_SENSITIVITY for s in report.categories.values())
    if not (official or variants):
        return None
    return compute_leaderboard(official, sizes)


class LatencyStats(BaseModel):
    """bfcl-eval's latency columns: mean, sample standard deviation and 95th percentile (s),
    over every non-zero latency the results carry, rounded to 2 places."""

    mean: float
    std: float
    p95: float


def latency_stats(results: Sequence[CaseResult]) -> LatencyStats | None:
    """The latency columns, or None when no result has a latency (bfcl-eval prints N/A)."""
    data = sorted(r.latency_s for r in results if r.latency_s)
    if len(data) < 2:
        return None
    # numpy's default (linear) percentile, without importing numpy
    rank = 0.95 * (len(data) - 1)
    low = int(rank)
    high = min(low + 1, len(data) - 1)
    p95 = data[low] + (data[high] - data[low]) * (rank - low)
    return LatencyStats(
        mean=round(statistics.mean(data), 2),
        std=round(statistics.stdev(data), 2),
        p95=round(p95, 2),
    )


def cell_text(value: float | None) -> str:
    """A cell as the leaderboard CSV writes it: `12.34%` or `N/A`."""
    return NA if value is None else f"{value * 100:.2f}%"

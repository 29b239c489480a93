"""Per-suite accuracy and the leaderboard's summary columns, from case verdicts.

Summary columns follow BFCL's leaderboard (eval_runner_helper.generate_leaderboard_csv):

- `non_live_simple_ast`: unweighted mean of simple_python, simple_java, simple_javascript.
- `non_live_ast`: unweighted mean of non_live_simple_ast, multiple, parallel,
  parallel_multiple (BFCL's "Non-Live AST" and its non-live overall).
- `live_ast`: live_simple, live_multiple, live_parallel, live_parallel_multiple weighted by
  their case counts (BFCL's "Live" overall).
- `irrelevance`: unweighted mean of irrelevance and live_irrelevance.
- `relevance`: live_relevance.
- `multi_turn`: unweighted mean of the four multi-turn categories.
- `agentic`: unweighted mean of web search (mean of its two categories) and memory (mean of
  its three backends).
- `own`: all of a repository's own suites pooled (correct / total).
- `overall`: "overall of what ran", the weighted mean of the group columns that ran, with
  BFCL's weights non_live_ast 10, live_ast 10, irrelevance 10, multi_turn 30, agentic 40,
  and `own` 10, renormalised over the groups present. Like BFCL, relevance does not enter
  it. It is NOT the leaderboard's Overall Acc, which counts a group that did not run as 0:
  `bfcl_action.results.leaderboard` computes that one (and every other leaderboard column).

When all components of a column ran, the value equals the leaderboard's. When only some ran,
the column is the same formula over the components that ran (BFCL would show N/A and count a
missing category as 0); a column with no component run is None. So `overall` always means
"the leaderboard's formula restricted to what was run": with the 13 official single-turn
categories it is the mean of non_live_ast, live_ast and irrelevance.

Suites of other datasets (`live@2026-W48/live_simple`) get the same columns prefixed with
their dataset (`live@2026-W48/live_ast`, `live@2026-W48/overall`, ...); when a run has only
such suites, the unprefixed columns summarise them too (same category pooled across
datasets). Cases with an infrastructure error are excluded from every count.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from bfcl_action import __version__
from bfcl_action.core.categories import CATEGORIES, Column, columns_of, is_multi_turn, natural_key
from bfcl_action.core.fingerprint import case_set_hash, config_fingerprint
from bfcl_action.core.records import CaseResult, CategoryScore, Mode, RunReport, TestCase

_SIMPLE = columns_of(Column.NON_LIVE_SIMPLE_AST)
_NON_LIVE_AST = columns_of(Column.NON_LIVE_AST)
_LIVE_AST = columns_of(Column.LIVE_AST)
_IRRELEVANCE = columns_of(Column.IRRELEVANCE)
_RELEVANCE = columns_of(Column.RELEVANCE)
_MULTI_TURN = columns_of(Column.MULTI_TURN)
_WEB_SEARCH = columns_of(Column.WEB_SEARCH)
_MEMORY = columns_of(Column.MEMORY)
OVERALL_WEIGHTS: dict[str, float] = {
    "non_live_ast": 10,
    "live_ast": 10,
    "irrelevance": 10,
    "multi_turn": 30,
    "agentic": 40,
    "own": 10,
}
"""BFCL v4's weights (non-live 10, live 10, irrelevance 10, multi-turn 30, agentic 40), plus
our own suites as one more single-turn group."""

SUMMARY_COLUMNS = [
    "overall",
    "non_live_ast",
    "non_live_simple_ast",
    "live_ast",
    "irrelevance",
    "relevance",
    "multi_turn",
    "agentic",
    "own",
]


def score_results(results: Iterable[CaseResult]) -> dict[str, CategoryScore]:
    """Accuracy per suite label, official categories first in the category table's order."""
    correct: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    infra: dict[str, int] = defaultdict(int)
    category_of: dict[str, str] = {}
    for result in results:
        label = result.label()
        category_of.setdefault(label, result.category)
        if result.infra_error is not None:
            infra[label] += 1
            continue
        total[label] += 1
        correct[label] += int(result.valid)
    scores = {
        label: CategoryScore(
            suite=label,
            category=category_of[label],
            correct=correct[label],
            total=total[label],
            infra_errors=infra[label],
            accuracy=correct[label] / total[label] if total[label] else 0.0,
        )
        for label in category_of
    }
    return dict(sorted(scores.items(), key=lambda kv: _suite_order(kv[0], kv[1].category)))


def _suite_order(label: str, category: str) -> tuple[int, int, list[tuple[int, int | str]]]:
    order = list(CATEGORIES)
    index = order.index(category) if category in CATEGORIES else len(order)
    return (1 if "/" in label else 0, index, natural_key(label))


class _Part:
    """An accuracy with the case count behind it (BFCL's `{"accuracy", "total_count"}`)."""

    __slots__ = ("accuracy", "count")

    def __init__(self, accuracy: float, count: int) -> None:
        self.accuracy = accuracy
        self.count = count


def _unweighted(parts: Sequence[_Part | None]) -> _Part | None:
    present = [p for p in parts if p is not None]
    if not present:
        return None
    return _Part(sum(p.accuracy for p in present) / len(present), sum(p.count for p in present))


def _weighted(parts: Sequence[_Part | None]) -> _Part | None:
    present = [p for p in parts if p is not None and p.count]
    count = sum(p.count for p in present)
    if not count:
        return None
    return _Part(sum(p.accuracy * p.count for p in present) / count, count)


def _columns(by_category: Mapping[str, CategoryScore]) -> dict[str, float | None]:
    def part(category: str) -> _Part | None:
        score = by_category.get(category)
        if score is None or score.total == 0:
            return None
        return _Part(score.accuracy, score.total)

    simple = _unweighted([part(c) for c in _SIMPLE])
    non_live = _unweighted([simple, *(part(c) for c in _NON_LIVE_AST)])
    live_ast = _weighted([part(c) for c in _LIVE_AST])
    irrelevance = _unweighted([part(c) for c in _IRRELEVANCE])
    relevance = _unweighted([part(c) for c in _RELEVANCE])
    multi_turn = _unweighted([part(c) for c in _MULTI_TURN])
    agentic = _unweighted(
        [_unweighted([part(c) for c in _WEB_SEARCH]), _unweighted([part(c) for c in _MEMORY])]
    )
    own_scores = [
        s
        for c, s in by_category.items()
        if c in CATEGORIES and CATEGORIES[c].column is Column.OWN and s.total
    ]
    own_total = sum(s.total for s in own_scores)
    own = _Part(sum(s.correct for s in own_scores) / own_total, own_total) if own_total else None

    groups = {
        "non_live_ast": non_live,
        "live_ast": live_ast,
        "irrelevance": irrelevance,
        "multi_turn": multi_turn,
        "agentic": agentic,
        "own": own,
    }
    present = {k: v for k, v in groups.items() if v is not None}
    weight_sum = sum(OVERALL_WEIGHTS[k] for k in present)
    overall = (
        sum(v.accuracy * OVERALL_WEIGHTS[k] for k, v in present.items()) / weight_sum
        if weight_sum
        else None
    )

    def value(p: _Part | None) -> float | None:
        return p.accuracy if p is not None else None

    return {
        "overall": overall,
        "non_live_ast": value(non_live),
        "non_live_simple_ast": value(simple),
        "live_ast": value(live_ast),
        "irrelevance": value(irrelevance),
        "relevance": value(relevance),
        "multi_turn": value(multi_turn),
        "agentic": value(agentic),
        "own": value(own),
    }


def summarize(scores: Mapping[str, CategoryScore]) -> dict[str, float | None]:
    """The leaderboard's summary columns (see the module docstring for exact definitions).

    Suites labelled by category (official and own data) give the unprefixed columns; each
    other dataset's suites (`<dataset>/<category>`) give the same columns prefixed
    `<dataset>/`. A run with no official or own suite (only Live releases) gets the
    unprefixed columns from all its suites, pooled by category, so `overall` is always set
    when anything that counts toward it ran.
    """
    plain: dict[str, CategoryScore] = {}
    prefixed: dict[str, dict[str, CategoryScore]] = defaultdict(dict)
    for label, score in scores.items():
        if "/" in label:
            dataset = label.rsplit("/", 1)[0]
            prefixed[dataset][score.category] = score
        else:
            plain[score.category] = score
    summary: dict[str, float | None] = {}
    if plain or not prefixed:
        summary.update(_columns(plain))
    else:
        summary.update(_columns(_merge(prefixed.values())))
    for dataset, by_category in prefixed.items():
        for column, number in _columns(by_category).items():
            summary[f"{dataset}/{column}"] = number
    return summary


def _merge(groups: Iterable[Mapping[str, CategoryScore]]) -> dict[str, CategoryScore]:
    """One score per category, pooling the same category across datasets."""
    merged: dict[str, CategoryScore] = {}
    for by_category in groups:
        for category, score in by_category.items():
            prior = merged.get(category)
            if prior is None:
                merged[category] = score
                continue
            correct, total = prior.correct + score.correct, prior.total + score.total
            merged[category] = CategoryScore(
                suite=category,
                category=category,
                correct=correct,
                total=total,
                infra_errors=prior.infra_errors + score.infra_errors,
                accuracy=correct / total if total else 0.0,
            )
    return merged


def build_report(
    results: Sequence[CaseResult],
    *,
    model: str,
    mode: Mode | str,
    datasets: Sequence[str],
    settings: Mapping[str, Any] | None = None,
    notes: Sequence[str] = (),
    created_at: str | None = None,
) -> RunReport:
    """A complete RunReport: per-suite scores, summary, fingerprint and case-set hash."""
    settings_dict = dict(settings or {})
    mode_value = Mode(mode)
    scores = score_results(results)
    return RunReport(
        tool_version=__version__,
        created_at=created_at or datetime.now(UTC).isoformat(timespec="seconds"),
        model=model,
        mode=mode_value,
        datasets=list(datasets),
        settings=settings_dict,
        fingerprint=config_fingerprint(
            model=model, mode=mode_value.value, datasets=datasets, settings=settings_dict
        ),
        case_set=case_set_hash(r.id for r in results),
        results=list(results),
        categories=scores,
        summary=summarize(scores),
        notes=list(notes),
    )


def repeat_summary(results: Sequence[CaseResult]) -> tuple[dict[str, float | None], list[str]]:
    """Mean accuracy over all samples, pass^k, and ids of cases whose samples disagree."""
    scored = [r for r in results if r.infra_error is None and r.samples]
    if not scored:
        return {}, []
    mean = sum(sum(r.samples or []) / len(r.samples or [1]) for r in scored) / len(scored)
    pass_all = sum(all(r.samples or []) for r in scored) / len(scored)
    unstable = sorted(r.id for r in scored if len(set(r.samples or [])) > 1)
    summary: dict[str, float | None] = {
        "repeat_mean_accuracy": round(mean, 4),
        "repeat_pass_all": round(pass_all, 4),
        "repeat_unstable_cases": float(len(unstable)),
    }
    return summary, unstable


def _question_excerpt(case: TestCase, limit: int = 400) -> str:
    for turn in case.question:
        for message in reversed(turn):
            if message.role == "user" and message.content:
                text = message.content
                return text if len(text) <= limit else text[: limit - 1] + "…"
    return ""


def attach_case_context(report: RunReport, cases: Iterable[TestCase]) -> RunReport:
    """Copy each case's question excerpt, expected answer and offered function names onto
    its result, so the stored report can explain flips without the dataset at hand."""
    by_id = {c.id: c for c in cases}
    results = []
    for result in report.results:
        case = by_id.get(result.id)
        if case is None:
            results.append(result)
            continue
        results.append(
            result.model_copy(
                update={
                    "question": _question_excerpt(case),
                    # multi-turn answers are per-turn call strings, not possible answers;
                    # their verdict's errors name the turn and what differed
                    "expected": None if is_multi_turn(case.category) else case.possible_answer,
                    "functions": [f.name for f in case.functions],
                }
            )
        )
    return report.model_copy(update={"results": results})

"""Which model should we ship? Several models' runs over the same cases, side by side.

`choose_models` takes one `RunReport` per model (a `models:` matrix run, or reports of the
same cases gathered by hand) and gives, per model, the score with its Wilson 95% interval
overall and per suite, the cost and latency; between every pair of models, the paired test
on the cases both answered (the exact sign test over question clusters, as `compare` counts
evidence: a case and its distractor variants are one question, an identical request one
answer; McNemar's test when every case is its own question), its per-suite tests
Holm-adjusted over the pair's suites; and a ranking with the best model, said to be a
*clear* best only when it is significantly better than every other model.

What a caller can rely on:
- Infrastructure errors are no verdict on a model: they are left out of its score and of
  every pair it is in (a case counts for a pair when both models answered it).
- Models are paired by case id. When the case sets differ, each pair is tested on the cases
  both answered and says how many were left out; the ranking uses the cases *every* model
  answered, so all models are ranked on the same questions.
- With samples (`run --repeat K`), a case's verdict is its first sample's (`CaseResult.valid`,
  the same verdict its report scores), so the paired test stays a test on one answer per
  case per model; the mean over all K samples and the all-K pass rate (pass^k) are shown
  beside it (`ModelSummary.repeat`).
- Ties in accuracy (equal correct counts on the common cases) are broken by cost (the cost
  without cache, `RunCost.full_cost_usd`, else this run's), then latency p50, then the order
  given; a model without a price or a latency ranks after those with one.
- The order of `ModelChoice.models` is the order given (the matrix order) for tables; the
  ranking is a separate list.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Literal

from pydantic import BaseModel, Field

from bfcl_action.compare.runs import Clusters, SideScore
from bfcl_action.compare.stats import holm, percentile, sign_test
from bfcl_action.core.categories import natural_key
from bfcl_action.core.cost import run_cost
from bfcl_action.core.records import CaseResult, Mode, RunReport

OVERALL = "overall"
"""The `suite` of a pair's test over all its cases."""

TIE_BREAK = (
    "ties broken by cost without cache (cheaper first), then latency p50 (faster first), "
    "then the order given"
)


class Latency(BaseModel):
    """Seconds per answered case (linear-interpolation percentiles, `stats.percentile`).

    `basis` says which answers were timed: `fresh` (asked in this run; answers reused from
    the response cache are left out, their time is an earlier run's), `cached` (every answer
    came from the cache: the times are the runs' that asked them), `none` (no timing).
    """

    p50: float | None = None
    p95: float | None = None
    n: int = 0
    basis: Literal["fresh", "cached", "none"] = "none"


class RepeatScore(BaseModel):
    """Over every sample of the answered cases of a `--repeat K` run."""

    samples: int
    """K (the largest sample count of a case)."""
    mean_accuracy: float
    pass_all: float
    """Share of cases whose every sample passed (pass^k)."""
    unstable: int
    """Cases whose samples disagree."""


class ModelSummary(BaseModel):
    """One model's run: scores, what it cost, how fast it answered."""

    name: str
    """Display name: the matrix entry (`RunReport.label`) or the model, unique in a choice."""
    model: str
    label: str = ""
    mode: Mode = Mode.FC
    cases: int
    infra_errors: int
    overall: SideScore
    """Over every case this model answered."""
    common: SideScore
    """Over the cases every model answered: the ranking's basis."""
    suites: dict[str, SideScore] = Field(default_factory=dict)
    """Per suite (`CaseResult.label()`), over the cases this model answered."""
    cost_usd: float | None = None
    """What this run paid (`RunCost.cost_usd`); None: no price for the model."""
    full_cost_usd: float | None = None
    """The same evaluation with nothing reused from the response cache."""
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    latency: Latency = Field(default_factory=Latency)
    repeat: RepeatScore | None = None


class PairedTest(BaseModel):
    """Model `a` against model `b` on the cases both answered (one suite, or overall).

    `a_only`: cases `a` passed and `b` failed; `delta_points` is `a`'s accuracy minus `b`'s on
    these cases, in percentage points; `p_value` is the exact sign test on the question
    clusters where one model did better (`a_clusters`/`b_clusters`); `p_adjusted` is a
    suite's Holm-adjusted p among the pair's suites (None overall), and `significant` compares
    the adjusted p with alpha. Swapping `a` and `b` swaps the `a_`/`b_` counts and negates
    the delta; p is the same.
    """

    suite: str
    n: int
    a_correct: int
    b_correct: int
    a_only: int
    b_only: int
    delta_points: float | None
    p_value: float
    significant: bool
    clusters: int = 0
    a_clusters: int = 0
    """Question clusters where `a` passed more of the cases than `b`."""
    b_clusters: int = 0
    p_adjusted: float | None = None


class Pairing(BaseModel):
    """Every test between two models (`a` before `b` in the order given)."""

    a: str
    b: str
    overall: PairedTest
    suites: list[PairedTest] = Field(default_factory=list)
    only_in_a: int = 0
    """Cases in `a`'s report that `b`'s does not hold (left out of the tests)."""
    only_in_b: int = 0
    unanswered: int = 0
    """Cases both reports hold that at least one model did not answer (infrastructure error)."""
    notes: list[str] = Field(default_factory=list)

    def test_between(self, first: str) -> PairedTest:
        """The overall test seen from `first` (either of the pair) against the other."""
        return self.overall if first == self.a else mirrored(self.overall)


class Ranked(BaseModel):
    rank: int
    name: str
    correct: int
    total: int
    accuracy: float | None


class Best(BaseModel):
    """The top-ranked model and how sure the run is about it."""

    name: str
    clear: bool
    """Significantly better (paired sign test over question clusters, at `alpha`) than every
    other model."""
    beats: list[str] = Field(default_factory=list)
    """Models it is significantly better than."""
    tied_with: list[str] = Field(default_factory=list)
    """Models not significantly different from it (or, rarely, better on their own pair)."""
    cheapest_of_tied: str | None = None
    """Among the best and the models tied with it, the one that costs least (when more than
    one has a price and they differ); of equally cheap ones, the first ranked (faster)."""
    level_with: list[str] = Field(default_factory=list)
    """Models with exactly its score on the common cases (ranked below it by `TIE_BREAK`)."""
    ahead_by: Literal["accuracy", "cost", "latency", "order"] = "accuracy"
    """What put it above the runner-up: more correct cases, else the tie-break that decided."""


class ModelChoice(BaseModel):
    alpha: float
    models: list[ModelSummary]
    """In the order given (the matrix order)."""
    suites: list[str]
    """Every suite any model reported, in natural order."""
    pairs: list[Pairing]
    ranking: list[Ranked]
    best: Best | None
    """None when no case was answered by every model."""
    common_cases: int
    """Cases every model answered (the ranking's basis)."""
    case_sets_differ: bool
    tie_break: str = TIE_BREAK
    notes: list[str] = Field(default_factory=list)

    def model(self, name: str) -> ModelSummary:
        return next(m for m in self.models if m.name == name)

    def pair(self, a: str, b: str) -> PairedTest:
        """The overall test of `a` against `b`, whichever order they were given in."""
        for p in self.pairs:
            if {p.a, p.b} == {a, b}:
                return p.test_between(a)
        raise KeyError(f"no pair {a!r} / {b!r}")


# --- building blocks ------------------------------------------------------------------------


def display_names(reports: Sequence[RunReport]) -> list[str]:
    """`label or model` per report, made unique. Reports sharing a name whose modes all
    differ are told apart by mode (`fc` keeps the plain name, `gpt (prompt)`); otherwise the
    first keeps the name and the others get ` (2)`, ` (3)` ... in the order given."""
    base = [r.label or r.model or "model" for r in reports]
    names: list[str] = []
    for i, (name, report) in enumerate(zip(base, reports, strict=True)):
        twins = [j for j, other in enumerate(base) if other == name]
        candidate = name
        modes = [reports[j].mode for j in twins]
        if len(twins) > 1 and len(set(modes)) == len(modes):
            candidate = name if report.mode is Mode.FC else f"{name} ({report.mode.value})"
        elif len(twins) > 1 and twins.index(i) > 0:
            candidate = f"{name} ({twins.index(i) + 1})"
        while candidate in names:  # a label that already reads like a disambiguated name
            candidate += "'"
        names.append(candidate)
    return names


def _answered(report: RunReport) -> dict[str, CaseResult]:
    return {r.id: r for r in report.results if r.infra_error is None}


def _side(results: Sequence[CaseResult]) -> SideScore:
    return SideScore.of(sum(r.valid for r in results), len(results))


def latency_of(results: Sequence[CaseResult]) -> Latency:
    timed = [r for r in results if r.infra_error is None and r.latency_s is not None]
    fresh = [r for r in timed if not r.reused]
    basis: Literal["fresh", "cached", "none"] = "fresh" if fresh else "cached" if timed else "none"
    values = [r.latency_s for r in (fresh or timed) if r.latency_s is not None]
    return Latency(
        p50=percentile(values, 0.5), p95=percentile(values, 0.95), n=len(values), basis=basis
    )


def _repeat(results: Sequence[CaseResult]) -> RepeatScore | None:
    sampled = [r for r in results if r.infra_error is None and r.samples]
    if not sampled:
        return None
    return RepeatScore(
        samples=max(len(r.samples or []) for r in sampled),
        mean_accuracy=sum(sum(r.samples or []) / len(r.samples or [1]) for r in sampled)
        / len(sampled),
        pass_all=sum(all(r.samples or []) for r in sampled) / len(sampled),
        unstable=sum(len(set(r.samples or [])) > 1 for r in sampled),
    )


def summarize_model(name: str, report: RunReport, common: set[str]) -> ModelSummary:
    answered = _answered(report)
    by_suite: dict[str, list[CaseResult]] = {}
    for result in answered.values():
        by_suite.setdefault(result.label(), []).append(result)
    for result in report.results:  # a suite of only infrastructure errors still has a row
        by_suite.setdefault(result.label(), [])
    cost = report.cost or run_cost(report.results)
    return ModelSummary(
        name=name,
        model=report.model,
        label=report.label,
        mode=report.mode,
        cases=len({r.id for r in report.results}),
        infra_errors=sum(r.infra_error is not None for r in report.results),
        overall=_side(list(answered.values())),
        common=_side([answered[i] for i in sorted(common)]),
        suites={
            s: _side(rs) for s, rs in sorted(by_suite.items(), key=lambda kv: natural_key(kv[0]))
        },
        cost_usd=cost.cost_usd,
        full_cost_usd=cost.full_cost_usd,
        input_tokens=cost.input_tokens,
        output_tokens=cost.output_tokens,
        cached_tokens=cost.cached_tokens,
        latency=latency_of(report.results),
        repeat=_repeat(report.results),
    )


def paired_test(
    suite: str,
    a: Sequence[bool],
    b: Sequence[bool],
    *,
    alpha: float,
    ids: Sequence[str] | None = None,
    clusters: Clusters | None = None,
) -> PairedTest:
    """The test on paired verdicts (`a[i]` and `b[i]` are the same case's, `ids[i]`); with
    `clusters`, cases of one question count once (without: every case is its own)."""
    a_only = sum(x and not y for x, y in zip(a, b, strict=True))
    b_only = sum(y and not x for x, y in zip(a, b, strict=True))
    n = len(a)
    a_correct, b_correct = sum(a), sum(b)
    case_ids = list(ids) if ids is not None else [str(i) for i in range(n)]
    nets, _ = (clusters or Clusters()).evidence(list(zip(case_ids, b, a, strict=True)))
    a_clusters, b_clusters = sum(v > 0 for v in nets.values()), sum(v < 0 for v in nets.values())
    p = sign_test(a_clusters, b_clusters)
    return PairedTest(
        suite=suite,
        n=n,
        a_correct=a_correct,
        b_correct=b_correct,
        a_only=a_only,
        b_only=b_only,
        delta_points=(a_correct - b_correct) / n * 100 if n else None,
        p_value=p,
        significant=p < alpha,
        clusters=len(nets),
        a_clusters=a_clusters,
        b_clusters=b_clusters,
    )


def mirrored(test: PairedTest) -> PairedTest:
    """The same test seen from the other model."""
    return test.model_copy(
        update={
            "a_correct": test.b_correct,
            "b_correct": test.a_correct,
            "a_only": test.b_only,
            "b_only": test.a_only,
            "a_clusters": test.b_clusters,
            "b_clusters": test.a_clusters,
            "delta_points": None if test.delta_points is None else -test.delta_points,
        }
    )


def pair_models(
    names: tuple[str, str], reports: tuple[RunReport, RunReport], *, alpha: float
) -> Pairing:
    """Tests of `reports[0]` against `reports[1]`, overall and per suite, paired by case id."""
    ids_a = {r.id for r in reports[0].results}
    ids_b = {r.id for r in reports[1].results}
    ans_a, ans_b = _answered(reports[0]), _answered(reports[1])
    both = sorted(ans_a.keys() & ans_b.keys())
    by_suite: dict[str, list[str]] = {}
    for case_id in both:
        suite = min(ans_a[case_id].label(), ans_b[case_id].label())
        by_suite.setdefault(suite, []).append(case_id)

    clusters = Clusters.of_runs(reports[0].results, reports[1].results)

    def test(suite: str, ids: Sequence[str]) -> PairedTest:
        return paired_test(
            suite,
            [ans_a[i].valid for i in ids],
            [ans_b[i].valid for i in ids],
            alpha=alpha,
            ids=ids,
            clusters=clusters,
        )

    suites = [test(s, by_suite[s]) for s in sorted(by_suite, key=natural_key)]
    for suite_test, adjusted in zip(suites, holm([t.p_value for t in suites]), strict=True):
        suite_test.p_adjusted = adjusted
        suite_test.significant = adjusted < alpha
    pairing = Pairing(
        a=names[0],
        b=names[1],
        overall=test(OVERALL, both),
        suites=suites,
        only_in_a=len(ids_a - ids_b),
        only_in_b=len(ids_b - ids_a),
        unanswered=len(ids_a & ids_b) - len(both),
    )
    if pairing.only_in_a or pairing.only_in_b:
        pairing.notes.append(
            f"case sets differ: tested on the {len(both)} cases both answered "
            f"({pairing.only_in_a} only in {names[0]}, {pairing.only_in_b} only in {names[1]})"
        )
    if pairing.unanswered:
        pairing.notes.append(
            f"{pairing.unanswered} case(s) left out: infrastructure error in one of the two"
        )
    return pairing


def _missing_last(value: float | None) -> tuple[int, float]:
    return (1, 0.0) if value is None else (0, value)


def rank_models(models: Sequence[ModelSummary]) -> list[Ranked]:
    """Most correct on the common cases first; ties by `TIE_BREAK`."""
    order = sorted(
        range(len(models)),
        key=lambda i: (
            -models[i].common.correct,
            _missing_last(_plan_cost(models[i])),
            _missing_last(models[i].latency.p50),
            i,
        ),
    )
    return [
        Ranked(
            rank=place + 1,
            name=models[i].name,
            correct=models[i].common.correct,
            total=models[i].common.total,
            accuracy=models[i].common.accuracy,
        )
        for place, i in enumerate(order)
    ]


def _plan_cost(model: ModelSummary) -> float | None:
    return model.full_cost_usd if model.full_cost_usd is not None else model.cost_usd


def best_model(
    choice_models: Sequence[ModelSummary], ranking: Sequence[Ranked], pairs: Sequence[Pairing]
) -> Best | None:
    if not ranking or ranking[0].total == 0:
        return None
    top = ranking[0].name
    beats: list[str] = []
    tied: list[str] = []
    for entry in ranking[1:]:
        test = next(p for p in pairs if {p.a, p.b} == {top, entry.name}).test_between(top)
        won = test.significant and (test.delta_points or 0) > 0
        (beats if won else tied).append(entry.name)
    best = Best(name=top, clear=not tied and bool(beats), beats=beats, tied_with=tied)
    best.level_with = [r.name for r in ranking[1:] if r.correct == ranking[0].correct]
    if best.level_with:
        by_name = {m.name: m for m in choice_models}
        first, second = by_name[top], by_name[ranking[1].name]
        if _plan_cost(first) != _plan_cost(second):
            best.ahead_by = "cost"
        elif first.latency.p50 != second.latency.p50:
            best.ahead_by = "latency"
        else:
            best.ahead_by = "order"
    if tied:
        by_name = {m.name: m for m in choice_models}
        contenders = [by_name[r.name] for r in ranking if r.name in {top, *tied}]
        costs = [c for c in (_plan_cost(m) for m in contenders) if c is not None]
        if len(costs) > 1 and len(set(costs)) > 1:
            cheapest = min(costs)  # the first of the cheapest in ranking order (then faster)
            best.cheapest_of_tied = next(m.name for m in contenders if _plan_cost(m) == cheapest)
    return best


def choose_models(reports: Sequence[RunReport], *, alpha: float = 0.05) -> ModelChoice:
    """The model-choice view of one run's reports (one per model, in matrix order).

    Needs at least one report; with no case answered by every model the scores and pairs
    are still given, but there is no ranking basis (`best` is None, a note says why).
    """
    if not reports:
        raise ValueError("choose_models needs at least one report")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    names = display_names(reports)
    answered = [set(_answered(r)) for r in reports]
    common = set.intersection(*answered)
    id_sets = [frozenset(r.id for r in report.results) for report in reports]
    models = [summarize_model(n, r, common) for n, r in zip(names, reports, strict=True)]
    pairs = [
        pair_models((names[i], names[j]), (reports[i], reports[j]), alpha=alpha)
        for i, j in combinations(range(len(reports)), 2)
    ]
    ranking = rank_models(models)
    suites = sorted({s for m in models for s in m.suites}, key=natural_key)
    choice = ModelChoice(
        alpha=alpha,
        models=models,
        suites=suites,
        pairs=pairs,
        ranking=ranking,
        best=best_model(models, ranking, pairs),
        common_cases=len(common),
        case_sets_differ=len(set(id_sets)) > 1,
    )
    if choice.case_sets_differ:
        union = frozenset().union(*id_sets)
        choice.notes.append(
            f"the reports hold different cases ({len(union)} in all): ranked on the "
            f"{len(common)} every model answered, each pair tested on the cases both answered"
        )
    elif any(m.infra_errors for m in models):
        choice.notes.append(
            f"infrastructure errors left out: ranked on the {len(common)} cases every model "
            "answered"
        )
    if not common:
        choice.notes.append("no case was answered by every model: no ranking")
    if any(m.repeat for m in models):
        choice.notes.append(
            "repeated samples: each case's first sample is its verdict (as in its report); "
            "the mean over all samples is shown beside"
        )
    return choice


__all__ = [
    "OVERALL",
    "TIE_BREAK",
    "Best",
    "Latency",
    "ModelChoice",
    "ModelSummary",
    "PairedTest",
    "Pairing",
    "Ranked",
    "RepeatScore",
    "choose_models",
    "display_names",
    "mirrored",
    "paired_test",
]

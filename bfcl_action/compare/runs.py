"""Compare a run with its baseline: per-suite deltas that are real, and a verdict.

A drop counts as a regression only when it is larger than the allowed points *and* the
paired test is significant at `alpha`; a head score below a configured minimum is a
regression on its own. Improvements are judged the same way. The score is accuracy over
cases; the *evidence* is counted over question clusters (a case and every case derived from
it: distractor variants, repeats), each counted once by the sign of its net flips, with the
exact sign test (`stats.sign_test`; McNemar's test when every cluster is one case). A case
whose request was identical to another compared case's (`CaseResult.same_request_as`) is
one answer and counts once. The per-suite tests are one family: their p-values are
Holm-adjusted, so the chance that any unchanged suite is flagged stays at most `alpha`.
Whatever fired is one typed `FiredRule`, and `Comparison.headline` says it in one line.
Runs whose configuration differs (model, mode, datasets, settings) are not compared at all:
the comparison lists what differs. When only the case set differs, the cases both runs
answered are compared, and the comparison says so.
Infrastructure errors are listed and left out of every count; they never make a regression.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr, computed_field

from bfcl_action.compare.diagnostics import (
    CallBalance,
    ToolDiagnostic,
    call_balance,
    diagnose_tools,
)
from bfcl_action.compare.impact import ToolChange
from bfcl_action.compare.stats import fewest_for_significance, holm, sign_test, wilson_interval
from bfcl_action.core.categories import CATEGORIES, natural_key
from bfcl_action.core.fingerprint import case_set_hash
from bfcl_action.core.records import (
    CaseResult,
    ExpectedCall,
    RequestCounts,
    RunCost,
    RunReport,
)
from bfcl_action.results.digest import FAIL, INFRA, PASS, RunDigest, outcome_of
from bfcl_action.settings.thresholds import OVERALL as OVERALL
from bfcl_action.settings.thresholds import Thresholds


class Verdict(StrEnum):
    REGRESSION = "regression"
    IMPROVEMENT = "improvement"
    UNCHANGED = "unchanged"
    NO_BASELINE = "no_baseline"
    INCOMPARABLE = "incomparable"
    NEW = "new"
    REMOVED = "removed"


class SideScore(BaseModel):
    """Accuracy of one side with its Wilson 95% interval; `total` excludes infra errors."""

    correct: int
    total: int
    infra_errors: int = 0
    accuracy: float | None
    low: float
    high: float

    @classmethod
    def of(cls, correct: int, total: int, infra_errors: int = 0) -> SideScore:
        low, high = wilson_interval(correct, total)
        return cls(
            correct=correct,
            total=total,
            infra_errors=infra_errors,
            accuracy=correct / total if total else None,
            low=low,
            high=high,
        )


VERDICT_TEXT = {
    Verdict.REGRESSION: "regression",
    Verdict.IMPROVEMENT: "improvement",
    Verdict.UNCHANGED: "unchanged",
    Verdict.NO_BASELINE: "first run",
    Verdict.INCOMPARABLE: "not comparable",
    Verdict.NEW: "new",
    Verdict.REMOVED: "removed",
}
"""How every report words a verdict."""

WITHIN_NOISE = "within noise"
"""An unchanged verdict on a move larger than allowed that is not significant."""


class PairedOutcomes(BaseModel):
    """Outcomes on the cases both runs answered, and the test on their question clusters.

    `newly_failing`/`newly_passing` count cases; the evidence counts clusters: each cluster's
    net flips (newly passing minus newly failing, a repeated request once) make it regressed,
    improved or level, and `p_value` is the exact sign test on the regressed and improved
    clusters (`stats.sign_test`). `p_adjusted` is the Holm-adjusted p of a suite among the
    `suites_tested` suites of the comparison (None on the overall row, a test of its own).
    """

    n: int
    base_correct: int
    head_correct: int
    newly_failing: int
    newly_passing: int
    p_value: float
    clusters: int = 0
    """Question clusters among the compared cases."""
    clusters_regressed: int = 0
    clusters_improved: int = 0
    shared_requests: int = 0
    """Compared cases left out of the evidence: their request was another compared case's."""
    p_adjusted: float | None = None
    suites_tested: int = 0

    @property
    def p_decisive(self) -> float:
        """The p-value compared with `alpha`: Holm-adjusted for a suite, raw for overall."""
        return self.p_value if self.p_adjusted is None else self.p_adjusted


class Rule(StrEnum):
    """Why a row's verdict moved."""

    SIGNIFICANT_DROP = "significant_drop"
    SIGNIFICANT_RISE = "significant_rise"
    BELOW_MINIMUM = "below_minimum"


class FiredRule(BaseModel):
    """A rule that fired on one row, with the numbers it used. `threshold_key` names the
    `thresholds.categories` entry that set the limit (None: the global value)."""

    rule: Rule
    suite: str
    threshold_key: str | None = None
    delta_points: float | None = None
    max_drop: float | None = None
    alpha: float | None = None
    p_value: float | None = None
    p_adjusted: float | None = None
    suites_tested: int = 0
    clusters: int = 0
    clusters_regressed: int = 0
    clusters_improved: int = 0
    score: float | None = None
    """Head score in percent (`below_minimum`)."""
    min_score: float | None = None

    def text(self) -> str:
        """One line, plain text: what moved, against which limit, on what evidence."""
        own = f", per-category threshold {self.threshold_key}" if self.threshold_key else ""
        if self.rule is Rule.BELOW_MINIMUM:
            where = f" (per-category threshold {self.threshold_key})" if self.threshold_key else ""
            return (
                f"{self.suite} score {self.score:.1f}% is below the minimum "
                f"{self.min_score:g}%{where}"
            )
        word = "dropped" if self.rule is Rule.SIGNIFICANT_DROP else "rose"
        limit = "max_drop" if self.rule is Rule.SIGNIFICANT_DROP else "the allowed"
        p = f"sign test p {p_text(self.p_value)}"
        if self.p_adjusted is not None:
            p += f", Holm-adjusted over {self.suites_tested} suites {p_text(self.p_adjusted)}"
        return (
            f"{self.suite} {word} {abs(self.delta_points or 0):.1f} points (more than {limit} "
            f"{self.max_drop:g}{own}), significant over {self.clusters} question clusters: "
            f"{self.clusters_regressed} regressed, {self.clusters_improved} improved ({p}, "
            f"below alpha {self.alpha:g})"
        )


class FlippedCase(BaseModel):
    """A case whose outcome changed, with what the reviewer needs to judge it."""

    id: str
    suite: str
    direction: Literal["newly_failing", "newly_passing"]
    error_type: str | None = None
    """The failing side's BFCL error type (head for newly failing, base for newly passing)."""
    errors: list[str] = Field(default_factory=list)
    question: str | None = None
    expected: str | None = None
    got: str | None = None
    functions: list[str] = Field(default_factory=list)
    cluster: str = ""
    """The case this one derives from (a distractor variant's own case); empty: its own."""

    @property
    def cluster_id(self) -> str:
        return self.cluster or self.id


class UnansweredCase(BaseModel):
    """A case one side got no answer for (an infrastructure error), left out of accuracy."""

    id: str
    suite: str
    side: Literal["base", "head"]
    message: str


class InvolvedTool(BaseModel):
    change: ToolChange
    cases: list[str] = Field(default_factory=list)
    """Newly failing cases that offered, expected or called this tool."""


class Difference(BaseModel):
    """One reason two runs are not comparable, with both sides' values."""

    field: str
    base: str
    head: str


class SuiteComparison(BaseModel):
    suite: str
    category: str
    base: SideScore | None = None
    head: SideScore | None = None
    delta_points: float | None = None
    """Head minus base accuracy in points, over the paired cases when a paired test ran."""
    paired: PairedOutcomes | None = None
    significant: bool = False
    verdict: Verdict = Verdict.UNCHANGED
    reasons: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    flipped: list[FlippedCase] = Field(default_factory=list)
    only_in_base: int = 0
    only_in_head: int = 0
    within_noise: bool = False
    """Moved by more than the allowed points, but not significantly: shown, not flagged."""
    rules: list[FiredRule] = Field(default_factory=list)
    """The rules that set this row's verdict (the typed form of `reasons`)."""
    compared_base: SideScore | None = None
    compared_head: SideScore | None = None
    """The two scores `delta_points` is the difference of: over the paired cases when a
    paired test ran, else over each side's cases. Headline and table show these, so the
    numbers shown always subtract to the delta shown."""
    _pairs: list[tuple[str, bool, bool]] = PrivateAttr(default_factory=list)
    """(case id, base passed, head passed) of the compared cases: the overall row pools them."""

    @property
    def moved(self) -> bool:
        return self.verdict in (Verdict.REGRESSION, Verdict.IMPROVEMENT)

    @property
    def on_subset(self) -> bool:
        """The compared scores cover fewer cases than a side answered (case set changed,
        infrastructure errors): say which cases are compared."""
        if self.paired is None or self.base is None or self.head is None:
            return False
        return self.paired.n != self.base.total or self.paired.n != self.head.total

    def score_line(self) -> str:
        """One line for logs, statuses and titles, with the compared numbers only."""
        head, base = self.compared_head or self.head, self.compared_base
        if head is None or head.accuracy is None:
            return "n/a"
        if base is None or base.accuracy is None or self.delta_points is None:
            return f"{head.accuracy:.1%}"
        moved = f"{base.accuracy:.1%} -> {head.accuracy:.1%} ({self.delta_points:+.1f} pts)"
        if self.on_subset and self.paired is not None:
            return f"on the {self.paired.n} cases both runs answered: {moved}"
        return moved


class Comparison(BaseModel):
    """Everything the renderers show and the exit code is derived from."""

    base_model: str | None = None
    head_model: str
    mode: str
    has_baseline: bool
    base_is_digest: bool = False
    comparable: bool
    differences: list[Difference] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    thresholds: Thresholds
    overall: SuiteComparison
    suites: list[SuiteComparison]
    verdict: Verdict
    infra_errors: list[UnansweredCase] = Field(default_factory=list)
    requests: RequestCounts | None = None
    """What the head run asked the model and reused from the response cache."""
    cost: RunCost | None = None
    """The head run's tokens and dollars (`bfcl_action.core.cost`)."""
    tools: list[ToolDiagnostic] = Field(default_factory=list)
    """Per own tool: cases offering and expecting it, pass rates, dominant failure."""
    calls: CallBalance | None = None
    """False calls vs missed calls over the own cases (the irrelevance/relevance trade-off)."""
    changed_tools: list[InvolvedTool] = Field(default_factory=list)
    """Every changed tool definition, those involved in newly failing cases first."""
    uninvolved_tool_changes: int = 0
    """How many of `changed_tools` no newly failing case offered, expected or called."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def fails(self) -> bool:
        """Whether the check should fail: a regression outside informational mode."""
        return self.verdict is Verdict.REGRESSION and not self.thresholds.informational

    @property
    def exit_code(self) -> int:
        """0 passed (also no baseline, incomparable, informational), 1 regression."""
        return 1 if self.fails else 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def rule(self) -> FiredRule | None:
        """The rule behind the verdict: the overall row's first, else the first suite's in
        table order whose verdict is the comparison's (None: no rule moved it)."""
        deciding = self._deciding()
        return deciding[0] if deciding else None

    def _deciding(self) -> list[FiredRule]:
        wanted = {
            Verdict.REGRESSION: (Rule.SIGNIFICANT_DROP, Rule.BELOW_MINIMUM),
            Verdict.IMPROVEMENT: (Rule.SIGNIFICANT_RISE,),
        }.get(self.verdict, ())
        return [f for r in (self.overall, *self.suites) for f in r.rules if f.rule in wanted]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def headline(self) -> str:
        """The verdict and why, in one plain line: the comment's first line and the CLI's.
        A move beyond `max_drop` that is not significant reads "within noise", as its row
        does, never "unchanged"."""
        return f"{self.verdict_text} — {self._why()}"

    @property
    def verdict_text(self) -> str:
        if self.verdict is Verdict.UNCHANGED and self.overall.within_noise:
            return WITHIN_NOISE
        return VERDICT_TEXT[self.verdict]

    def _why(self) -> str:
        overall = self.overall
        if not self.has_baseline:
            head = overall.head
            score = "n/a" if head is None or head.accuracy is None else f"{head.accuracy:.1%}"
            cases = head.total if head is not None else 0
            return f"overall {score} on {cases} cases, no baseline to compare with"
        if not self.comparable:
            n = len(self.differences)
            return (
                f"base and head ran with different configurations ({n} difference"
                f"{'' if n == 1 else 's'}, listed below); no deltas"
            )
        deciding = self._deciding()
        if deciding:
            more = len(deciding) - 1
            return deciding[0].text() + (f" (and {more} more rule(s) fired)" if more else "")
        base, head = overall.compared_base, overall.compared_head
        paired = overall.paired
        if base is None or head is None or overall.delta_points is None or paired is None:
            return f"no rule fired: overall {overall.score_line()}"
        subset = f", on the {paired.n} cases both runs answered" if overall.on_subset else ""
        alpha = self.thresholds.alpha
        why = (
            f"p {p_text(paired.p_value)} is not below alpha {alpha:g}"
            if paired.p_value >= alpha
            else f"p {p_text(paired.p_value)} but within max_drop {self.thresholds.max_drop:g}"
        )
        fewest = fewest_for_significance(alpha)
        moved = paired.clusters_regressed + paired.clusters_improved
        if paired.p_value >= alpha and 0 < moved < fewest:
            why += f" (it takes at least {fewest} questions moving one way)"
        return (
            f"no rule fired: overall {percent(base.accuracy or 0)}% → "
            f"{percent(head.accuracy or 0)}% "
            f"({overall.delta_points:+.1f} points{subset}) over {paired.clusters} question "
            f"clusters ({paired.clusters_regressed} regressed, {paired.clusters_improved} "
            f"improved): sign test {why}"
        )

    @property
    def moved(self) -> list[SuiteComparison]:
        return [s for s in self.suites if s.moved]

    @property
    def flipped(self) -> list[FlippedCase]:
        return [f for s in self.suites for f in s.flipped]


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def format_expected(expected: Sequence[ExpectedCall]) -> str:
    """BFCL possible answers as call text: `f(a=1 | 2, b=omitted)`."""
    if not expected:
        return "no call"
    calls = []
    for call in expected:
        for name, params in call.items():
            args = []
            for param, options in params.items():
                shown = [("omitted" if o == "" else _value(o)) for o in options]
                args.append(f"{param}={' | '.join(shown)}")
            calls.append(f"{name}({', '.join(args)})")
    return "; ".join(calls)


def format_got(result: CaseResult) -> str | None:
    """What the model produced: decoded calls when decoding worked, else its raw output."""
    if result.decoded is not None:
        if not result.decoded:
            return "no call"
        return "; ".join(
            f"{c.name}({', '.join(f'{k}={_value(v)}' for k, v in c.arguments.items())})"
            for c in result.decoded
        )
    if result.model_output is None:
        return None
    raw = result.model_output
    return raw if isinstance(raw, str) else _value(raw)


def _called_names(result: CaseResult) -> set[str]:
    names = set(result.functions or [])
    names.update(c.name for c in result.decoded or [])
    for call in result.expected or []:
        names.update(call)
    return names


# --- normalised sides -----------------------------------------------------------------------


@dataclass
class _Suite:
    category: str
    correct: int
    total: int
    infra: int
    ids: str
    outcomes: dict[str, str] | None
    results: dict[str, CaseResult] = field(default_factory=dict)
    clusters: dict[str, str] = field(default_factory=dict)
    """Case id -> the case it derives from (a report's `cluster`), or `#<n>` (a digest's
    group number), for the cases this side says belong to another's cluster."""
    twins: dict[str, str] = field(default_factory=dict)
    """Case id -> the case whose identical request answered it (`same_request_as`)."""

    def score(self) -> SideScore:
        return SideScore.of(self.correct, self.total, self.infra)


def _suites_of_report(report: RunReport) -> dict[str, _Suite]:
    grouped: dict[str, dict[str, CaseResult]] = {}
    for result in report.results:
        grouped.setdefault(result.label(), {})[result.id] = result
    suites: dict[str, _Suite] = {}
    for label, results in grouped.items():
        outcomes = {i: outcome_of(r) for i, r in results.items()}
        values = list(outcomes.values())
        suites[label] = _Suite(
            category=next(iter(results.values())).category,
            correct=values.count(PASS),
            total=values.count(PASS) + values.count(FAIL),
            infra=values.count(INFRA),
            ids=case_set_hash(results),
            outcomes=outcomes,
            results=results,
            clusters={i: r.cluster for i, r in results.items() if r.cluster and r.cluster != i},
            twins={i: r.same_request_as for i, r in results.items() if r.same_request_as},
        )
    for label, score in report.categories.items():
        if label not in suites:
            suites[label] = _Suite(
                score.category, score.correct, score.total, score.infra_errors, "", None
            )
    return suites


def _suites_of_digest(digest: RunDigest, head: Mapping[str, _Suite]) -> dict[str, _Suite]:
    suites: dict[str, _Suite] = {}
    for label, entry in digest.suites.items():
        head_suite = head.get(label)
        outcomes = None
        clusters: dict[str, str] = {}
        if head_suite is not None and head_suite.outcomes is not None:
            outcomes = digest.outcomes_for(label, list(head_suite.outcomes))
            clusters = digest.clusters_for(label, list(head_suite.outcomes))
        suites[label] = _Suite(
            entry.category,
            entry.correct,
            entry.total,
            entry.infra_errors,
            entry.ids,
            outcomes,
            clusters=clusters,
        )
    return suites


_UNSET = object()


def _config_differences(base: RunReport | RunDigest, head: RunReport) -> list[Difference]:
    diffs: list[Difference] = []
    if base.model != head.model:
        diffs.append(Difference(field="model", base=base.model, head=head.model))
    if base.mode != head.mode:
        diffs.append(Difference(field="mode", base=str(base.mode), head=str(head.mode)))
    if sorted(base.datasets) != sorted(head.datasets):
        diffs.append(
            Difference(
                field="datasets",
                base=", ".join(sorted(base.datasets)) or "(none)",
                head=", ".join(sorted(head.datasets)) or "(none)",
            )
        )
    for key in sorted(set(base.settings) | set(head.settings)):
        b, h = base.settings.get(key, _UNSET), head.settings.get(key, _UNSET)
        if b != h:
            diffs.append(
                Difference(
                    field=f"settings.{key}",
                    base="(unset)" if b is _UNSET else _value(b),
                    head="(unset)" if h is _UNSET else _value(h),
                )
            )
    if not diffs and base.fingerprint and head.fingerprint and base.fingerprint != head.fingerprint:
        diffs.append(Difference(field="fingerprint", base=base.fingerprint, head=head.fingerprint))
    return diffs


# --- clusters -------------------------------------------------------------------------------


class Clusters:
    """Which compared cases are one question: the union of what each side says (a case's
    `cluster`, a digest's partition), so evidence is never split finer than either run
    knows; and which cases were another's identical request (`same_request_as`).

    A link joins a case to the case it derives from (a case id: the same in every run) or
    to a digest's group (`#<n>`, numbered within that digest). Unlinked cases are alone."""

    def __init__(self, *sides: Mapping[str, str], twins: Mapping[str, str] | None = None) -> None:
        """`sides`: per run, case id -> the case it derives from, or `#<n>`."""
        self._parent: dict[str, str] = {}
        self.twins = dict(twins or {})
        for number, side in enumerate(sides):
            for case_id, key in side.items():
                target = f"\x00{number}{key}" if key.startswith("#") else key
                self._union(case_id, target)

    @classmethod
    def of_runs(cls, *runs: Sequence[CaseResult]) -> Clusters:
        """From each run's results (`CaseResult.cluster`, `same_request_as`)."""
        return cls(
            *(
                {r.id: r.cluster for r in results if r.cluster and r.cluster != r.id}
                for results in runs
            ),
            twins={r.id: r.same_request_as for rs in runs for r in rs if r.same_request_as},
        )

    @classmethod
    def of_suites(cls, *sides: Mapping[str, _Suite]) -> Clusters:
        return cls(
            *({i: k for s in suites.values() for i, k in s.clusters.items()} for suites in sides),
            twins={i: t for suites in sides for s in suites.values() for i, t in s.twins.items()},
        )

    def _find(self, node: str) -> str:
        parent = self._parent.get(node, node)
        while parent != node:
            grand = self._parent.get(parent, parent)
            self._parent[node] = grand
            node, parent = parent, grand
        return node

    def _union(self, a: str, b: str) -> None:
        root_a, root_b = self._find(a), self._find(b)
        if root_a != root_b:
            self._parent[root_a] = root_b

    def of(self, case_id: str) -> str:
        """The cluster's representative (a case id or a digest group)."""
        return self._find(case_id) if self._parent else case_id

    def evidence(self, pairs: Sequence[tuple[str, bool, bool]]) -> tuple[dict[str, int], int]:
        """Net flips per cluster (head passes minus base passes) over `pairs` (case id, base
        passed, head passed), and how many cases were left out as another compared case's
        identical request."""
        twins = self.twins
        counted = {case_id for case_id, _, _ in pairs} if twins else set()
        nets: dict[str, int] = {}
        shared = 0
        for case_id, base, head in pairs:
            if twins and twins.get(case_id) in counted:
                shared += 1
                continue
            cluster = self.of(case_id)
            nets[cluster] = nets.get(cluster, 0) + int(head) - int(base)
        return nets, shared


def paired_test(
    pairs: Sequence[tuple[str, bool, bool]], clusters: Clusters | None = None
) -> PairedOutcomes:
    """Counts and the cluster sign test over (case id, base passed, head passed) pairs."""
    nets, shared = (clusters or Clusters()).evidence(pairs)
    regressed = sum(n < 0 for n in nets.values())
    improved = sum(n > 0 for n in nets.values())
    return PairedOutcomes(
        n=len(pairs),
        base_correct=sum(b for _, b, _ in pairs),
        head_correct=sum(h for _, _, h in pairs),
        newly_failing=sum(b and not h for _, b, h in pairs),
        newly_passing=sum(h and not b for _, b, h in pairs),
        p_value=sign_test(regressed, improved),
        clusters=len(nets),
        clusters_regressed=regressed,
        clusters_improved=improved,
        shared_requests=shared,
    )


# --- verdicts -------------------------------------------------------------------------------


def percent(value: float | None, *, digits: int = 1, missing: str = "—", unit: str = "") -> str:
    """A share (0..1) as every output shows it: in percent with `digits` decimals, then
    `unit` (`91.2`, `91.25%`); `missing` when there is no value. The one percentage
    formatter (comments, summaries, step outputs, the `score` table)."""
    return missing if value is None else f"{value * 100:.{digits}f}{unit}"


def p_text(p: float | None) -> str:
    """A p-value as every report shows it: three decimals, `< 0.001` below that."""
    if p is None:
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _judge(row: SuiteComparison, thresholds: Thresholds, *, comparable: bool) -> None:
    """Set `significant`, `verdict` and `reasons` of a row whose numbers are filled in."""
    if row.base is None or row.head is None:
        row.verdict = Verdict.NEW if row.base is None else Verdict.REMOVED
    elif not comparable:
        row.verdict = Verdict.INCOMPARABLE
    elif row.delta_points is not None:
        rule = thresholds.for_category(row.suite, row.category)
        allowed, alpha = rule.max_drop, rule.alpha
        paired = row.paired
        p = paired.p_decisive if paired else None
        row.significant = p is not None and p < alpha
        if paired is not None and row.significant and abs(row.delta_points) > allowed:
            drop = row.delta_points < 0
            row.verdict = Verdict.REGRESSION if drop else Verdict.IMPROVEMENT
            keys = [rule.keys[f] for f in ("max_drop", "alpha") if f in rule.keys]
            fired = FiredRule(
                rule=Rule.SIGNIFICANT_DROP if drop else Rule.SIGNIFICANT_RISE,
                suite=row.suite,
                threshold_key=", ".join(dict.fromkeys(keys)) or None,
                delta_points=row.delta_points,
                max_drop=allowed,
                alpha=alpha,
                p_value=paired.p_value,
                p_adjusted=paired.p_adjusted,
                suites_tested=paired.suites_tested,
                clusters=paired.clusters,
                clusters_regressed=paired.clusters_regressed,
                clusters_improved=paired.clusters_improved,
            )
            row.rules.append(fired)
            row.reasons.append(fired.text().removeprefix(f"{row.suite} "))
        elif p is not None and abs(row.delta_points) > allowed:
            row.within_noise = True
    resolved = thresholds.for_category(row.suite, row.category)
    minimum = resolved.min_score
    head_accuracy = row.head.accuracy if row.head is not None else None
    if minimum is not None and head_accuracy is not None and head_accuracy * 100 < minimum:
        row.verdict = Verdict.REGRESSION
        fired = FiredRule(
            rule=Rule.BELOW_MINIMUM,
            suite=row.suite,
            threshold_key=resolved.keys.get("min_score"),
            score=head_accuracy * 100,
            min_score=minimum,
        )
        row.rules.append(fired)
        row.reasons.append(fired.text().removeprefix(f"{row.suite} "))


def _unpaired_delta(base: SideScore | None, head: SideScore | None) -> float | None:
    if base is None or head is None or base.accuracy is None or head.accuracy is None:
        return None
    return (head.accuracy - base.accuracy) * 100


def _flip(case_id: str, label: str, base: _Suite, head: _Suite, failing: bool) -> FlippedCase:
    loser = head.results.get(case_id) if failing else base.results.get(case_id)
    context = head.results.get(case_id) or base.results.get(case_id)
    flipped = FlippedCase(
        id=case_id, suite=label, direction="newly_failing" if failing else "newly_passing"
    )
    if loser is not None:
        flipped.error_type = loser.error_type
        flipped.errors = list(loser.error)
        flipped.got = format_got(loser)
    if context is not None:
        flipped.cluster = context.cluster
        flipped.question = context.question
        flipped.functions = list(context.functions or [])
        if context.expected is not None:
            flipped.expected = format_expected(context.expected)
    return flipped


def _paired_row(label: str, base: _Suite, head: _Suite, clusters: Clusters) -> SuiteComparison:
    row = SuiteComparison(suite=label, category=head.category, base=base.score(), head=head.score())
    assert base.outcomes is not None and head.outcomes is not None
    common = base.outcomes.keys() & head.outcomes.keys()
    row.only_in_base = len(base.outcomes.keys() - common)
    row.only_in_head = len(head.outcomes.keys() - common)
    answered = sorted(i for i in common if base.outcomes[i] != INFRA and head.outcomes[i] != INFRA)
    failing = [i for i in answered if base.outcomes[i] == PASS and head.outcomes[i] == FAIL]
    passing = [i for i in answered if base.outcomes[i] == FAIL and head.outcomes[i] == PASS]
    row._pairs = [(i, base.outcomes[i] == PASS, head.outcomes[i] == PASS) for i in answered]
    row.paired = paired_test(row._pairs, clusters)
    base_correct, head_correct = row.paired.base_correct, row.paired.head_correct
    if answered:
        row.delta_points = (head_correct - base_correct) / len(answered) * 100
        row.compared_base = SideScore.of(base_correct, len(answered))
        row.compared_head = SideScore.of(head_correct, len(answered))
    row.flipped = [_flip(i, label, base, head, True) for i in failing] + [
        _flip(i, label, base, head, False) for i in passing
    ]
    if row.only_in_base or row.only_in_head:
        row.notes.append(
            f"case set changed: compared on the {len(answered)} cases both runs answered "
            f"({row.only_in_base} only in base, {row.only_in_head} only in head)"
        )
    skipped = len(common) - len(answered)
    if skipped:
        row.notes.append(f"{skipped} case(s) left out: infrastructure error in base or head")
    return row


def _row(
    label: str,
    base: _Suite | None,
    head: _Suite | None,
    comparable: bool,
    clusters: Clusters,
) -> SuiteComparison:
    if base is None or head is None:
        some = head or base
        assert some is not None
        return SuiteComparison(
            suite=label,
            category=some.category,
            base=base.score() if base else None,
            head=head.score() if head else None,
        )
    if comparable and base.outcomes is not None and head.outcomes is not None:
        return _paired_row(label, base, head, clusters)
    row = SuiteComparison(suite=label, category=head.category, base=base.score(), head=head.score())
    if comparable:
        row.delta_points = _unpaired_delta(row.base, row.head)
        row.compared_base, row.compared_head = row.base, row.head
        why = (
            "case set changed and the baseline is a digest: per-case outcomes cannot be aligned"
            if base.ids and head.outcomes is not None
            else "a run has no per-case results for this suite"
        )
        row.notes.append(f"{why}, so only the suite's counts are compared (no paired test)")
    return row


def _overall(
    rows: list[SuiteComparison], base_present: bool, clusters: Clusters
) -> SuiteComparison:
    def total(side: str) -> SideScore | None:
        scores = [getattr(r, side) for r in rows if getattr(r, side) is not None]
        if not scores:
            return None
        return SideScore.of(
            sum(s.correct for s in scores),
            sum(s.total for s in scores),
            sum(s.infra_errors for s in scores),
        )

    row = SuiteComparison(
        suite=OVERALL, category=OVERALL, base=total("base") if base_present else None
    )
    row.head = total("head")
    paired = [r.paired for r in rows if r.paired is not None]
    if paired:
        row.paired = paired_test([pair for r in rows for pair in r._pairs], clusters)
        n = row.paired.n
        if n:
            row.delta_points = (row.paired.head_correct - row.paired.base_correct) / n * 100
            row.compared_base = SideScore.of(row.paired.base_correct, n)
            row.compared_head = SideScore.of(row.paired.head_correct, n)
        if len(paired) < len(rows):
            row.notes.append("overall delta and test cover the suites compared case by case")
    elif any(r.delta_points is not None for r in rows):
        row.delta_points = _unpaired_delta(row.base, row.head)
        row.compared_base, row.compared_head = row.base, row.head
    return row


def _involved_tools(
    changes: Sequence[ToolChange], rows: Sequence[SuiteComparison], head: Mapping[str, _Suite]
) -> tuple[list[InvolvedTool], int]:
    failing: dict[str, set[str]] = {}
    for row in rows:
        for flip in row.flipped:
            if flip.direction != "newly_failing":
                continue
            result = head[row.suite].results.get(flip.id) if row.suite in head else None
            names = _called_names(result) if result else set(flip.functions)
            failing[flip.id] = names
    tools = [
        InvolvedTool(
            change=change, cases=sorted(i for i, names in failing.items() if change.name in names)
        )
        for change in changes
    ]
    tools.sort(key=lambda t: (not t.cases, t.change.name))
    return tools, sum(not t.cases for t in tools)


def _infra(side: Literal["base", "head"], suites: Mapping[str, _Suite]) -> list[UnansweredCase]:
    return [
        UnansweredCase(id=r.id, suite=label, side=side, message=r.infra_error or "")
        for label, suite in sorted(suites.items())
        for r in sorted(suite.results.values(), key=lambda r: r.id)
        if r.infra_error
    ]


def _holm(rows: Sequence[SuiteComparison]) -> None:
    """Holm-adjust the p-values of every suite with a paired test (one family)."""
    tested = [r.paired for r in rows if r.paired is not None and r.delta_points is not None]
    for test, adjusted in zip(tested, holm([t.p_value for t in tested]), strict=True):
        test.p_adjusted = adjusted
        test.suites_tested = len(tested)


def _overall_verdict(overall: SuiteComparison, rows: Sequence[SuiteComparison]) -> Verdict:
    verdicts = {overall.verdict, *(r.verdict for r in rows)}
    for verdict in (Verdict.REGRESSION, Verdict.IMPROVEMENT):
        if verdict in verdicts:
            return verdict
    return overall.verdict if overall.verdict is not Verdict.NEW else Verdict.NO_BASELINE


def compare_runs(
    base: RunReport | RunDigest | None,
    head: RunReport,
    thresholds: Thresholds | None = None,
    *,
    changed_tools: Sequence[ToolChange] = (),
) -> Comparison:
    """Compare `head` with `base` (a full report, a digest, or None for a first run)."""
    thresholds = thresholds or Thresholds()
    head_suites = _suites_of_report(head)
    if base is None:
        base_suites: dict[str, _Suite] = {}
    elif isinstance(base, RunDigest):
        base_suites = _suites_of_digest(base, head_suites)
    else:
        base_suites = _suites_of_report(base)

    differences = _config_differences(base, head) if base is not None else []
    comparable = base is not None and not differences
    notes: list[str] = []
    if differences:
        notes.append(
            "base and head ran with different configurations; scores are shown side by side "
            "without deltas or significance"
        )

    clusters = Clusters.of_suites(base_suites, head_suites)
    rows = [
        _row(label, base_suites.get(label), head_suites.get(label), comparable, clusters)
        for label in sorted(base_suites.keys() | head_suites.keys(), key=natural_key)
    ]
    _holm(rows)
    for row in rows:
        if base is None:
            row.verdict = Verdict.NO_BASELINE
        _judge(row, thresholds, comparable=comparable)
        if base is None and row.verdict is Verdict.NEW:
            row.verdict = Verdict.NO_BASELINE

    overall = _overall(rows, base is not None, clusters)
    _judge(overall, thresholds, comparable=comparable)
    if base is None and overall.verdict is Verdict.NEW:
        overall.verdict = Verdict.NO_BASELINE

    if comparable and base is not None:
        base_set = base.case_set
        head_set = head.case_set or case_set_hash(r.id for r in head.results)
        if base_set and head_set and base_set != head_set:
            notes.append(
                "the case set changed; suites are compared on the cases both runs answered"
                if not isinstance(base, RunDigest)
                else "the case set changed; suites whose cases are unchanged are compared "
                "case by case, the others by counts only"
            )

    involved, others = _involved_tools(changed_tools, rows, head_suites)
    base_outcomes: dict[str, str] | None = None
    if comparable:
        base_outcomes = {}
        for suite in base_suites.values():
            base_outcomes.update(suite.outcomes or {})
    base_results = base.results if comparable and isinstance(base, RunReport) else None
    own_results = [r for r in head.results if r.category in CATEGORIES]
    return Comparison(
        requests=head.requests,
        cost=head.cost,
        tools=diagnose_tools(own_results, base_outcomes),
        calls=call_balance(own_results, base_results, base_outcomes),
        base_model=base.model if base is not None else None,
        head_model=head.model,
        mode=str(head.mode),
        has_baseline=base is not None,
        base_is_digest=isinstance(base, RunDigest),
        comparable=comparable,
        differences=differences,
        notes=notes,
        thresholds=thresholds,
        overall=overall,
        suites=rows,
        verdict=_overall_verdict(overall, rows),
        infra_errors=_infra("head", head_suites) + _infra("base", base_suites),
        changed_tools=involved,
        uninvolved_tool_changes=others,
    )

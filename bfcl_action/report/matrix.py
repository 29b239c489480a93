"""The PR comment, check-run summary and job summary of a run: one model or a matrix.

One model without `models:` (`MatrixComparison.single`) gets its own layout
(`report.markdown`). A matrix's layout (templates/matrix.md.j2): the verdict naming the
models that moved; one row per model (verdict, overall score, change against *its own*
baseline, p over question clusters, cost, latency, requests); a model x suite table; which
model did best (`bfcl_action.compare.model_choice`); then each model's own comment
(`render_comment`: flips, per-tool diagnostics, distractor rows, changed tools) collapsed,
open for a regressed model. Within the size limit the model rows are always kept; suite
rows, then each model's details, are cut first, with a note.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bfcl_action.compare.matrix import MatrixComparison, MatrixEntry
from bfcl_action.compare.model_choice import ModelChoice
from bfcl_action.compare.runs import SuiteComparison, Verdict
from bfcl_action.core.categories import natural_key
from bfcl_action.report import github_limits as limits
from bfcl_action.report.markdown import (
    COMMENT_LIMIT,
    DEFAULT_TITLE,
    Safe,
    render_comment,
    render_summary,
    template,
)
from bfcl_action.report.model_choice import render_model_choice_markdown, verdict_text


@dataclass
class _Detail:
    entry: MatrixEntry
    body: Safe
    open: bool

    @property
    def line(self) -> Safe:
        """The details' one-line summary, from numbers only (no Markdown inside HTML)."""
        overall = self.entry.comparison.overall
        head, base = overall.compared_head or overall.head, overall.compared_base or overall.base
        if head is None or head.accuracy is None:
            return Safe("no answered case")
        if base is None or base.accuracy is None or overall.delta_points is None:
            return Safe(f"{head.accuracy:.1%} on {head.total:,} cases")
        return Safe(
            f"{base.accuracy:.1%} → {head.accuracy:.1%} ({overall.delta_points:+.1f} points)"
        )


def _suites(matrix: MatrixComparison) -> list[str]:
    names = {row.suite for e in matrix.entries for row in e.comparison.suites}
    return sorted(names, key=natural_key)


def _cells(matrix: MatrixComparison) -> dict[str, dict[str, SuiteComparison]]:
    return {e.label: {row.suite: row for row in e.comparison.suites} for e in matrix.entries}


def _headline_models(matrix: MatrixComparison) -> list[MatrixEntry]:
    verdict = matrix.verdict
    if verdict not in (Verdict.REGRESSION, Verdict.IMPROVEMENT):
        return []
    return [e for e in matrix.gating if e.comparison.verdict is verdict]


def _cases(matrix: MatrixComparison) -> int:
    return max(
        (e.comparison.overall.head.total for e in matrix.entries if e.comparison.overall.head),
        default=0,
    )


def _render(
    matrix: MatrixComparison,
    *,
    title: str,
    suite_limit: int | None,
    details: Sequence[_Detail],
    choice: ModelChoice | None,
    full_report_url: str | None,
    cut_note: str | None,
) -> str:
    suites = _suites(matrix)
    shown = suites if suite_limit is None else _moved_first(matrix, suites)[:suite_limit]
    ordered = [s for s in suites if s in shown]
    return template("matrix.md.j2").render(
        matrix=matrix,
        title=title,
        headline_models=_headline_models(matrix),
        watched=[e for e in matrix.entries if e.informational],
        cases=_cases(matrix),
        latency=_latency(choice),
        suites=ordered,
        suites_left_out=len(suites) - len(ordered),
        cells=_cells(matrix),
        choice=Safe(render_model_choice_markdown(choice, heading_level=4, max_suites=0))
        if choice is not None and len(choice.models) > 1
        else "",
        choice_headline=verdict_text(choice) if choice is not None else "",
        list_limit=10,
        details=list(details),
        full_report_url=full_report_url,
        cut_note=Safe(cut_note) if cut_note else None,
    )


def _latency(choice: ModelChoice | None) -> dict[str, tuple[float | None, float | None]]:
    """Latency p50 / p95 per label (answers asked in this run; `model_choice.Latency`)."""
    if choice is None:
        return {}
    return {m.label or m.name: (m.latency.p50, m.latency.p95) for m in choice.models}


def _moved_first(matrix: MatrixComparison, suites: list[str]) -> list[str]:
    """Suites some model moved in, then the others (what a cut table keeps)."""
    moved = {row.suite for e in matrix.entries for row in e.comparison.suites if row.moved}
    return sorted(suites, key=lambda s: (s not in moved, natural_key(s)))


def _fit(
    matrix: MatrixComparison,
    size: Callable[[str], int],
    limit: int,
    detail: Callable[[MatrixEntry, int], str],
    *,
    unit: str,
    where: str,
    **options: object,
) -> str:
    """Within `limit`: the model rows always; the suite table cut to what fits beside the
    smallest details; each model's details share what is left equally."""
    suites_total = len(_suites(matrix))

    def top(suite_limit: int | None, note: str | None) -> str:
        return _render(matrix, suite_limit=suite_limit, details=(), cut_note=note, **options)  # type: ignore[arg-type]

    note = None
    suite_limit: int | None = None
    reserve = 400 * len(matrix.entries)  # room each model's summary line and a short detail need
    if size(top(None, None)) + reserve > limit:
        low, high = 0, suites_total
        while low < high:
            mid = (low + high + 1) // 2
            if size(top(mid, "x" * 200)) + reserve <= limit:
                low = mid
            else:
                high = mid - 1
        suite_limit = low
        note = (
            f"Cut to fit the {limit:,}-{unit} limit: {suites_total - low:,} of {suites_total:,} "
            f"suites not shown in the table. Each model's report is in {where}."
        )
    room = limit - size(top(suite_limit, note)) - 200 * len(matrix.entries)
    each = max(room // max(len(matrix.entries), 1), 0)
    details = []
    for entry in matrix.entries:
        body = _without_heading(detail(entry, each)) if each >= 600 else ""
        if not body or size(body) > each:
            body = f"Cut to fit the {limit:,}-{unit} limit; this model's report is in {where}."
        details.append(
            _Detail(
                entry=entry,
                body=Safe(body),
                open=entry.comparison.verdict is Verdict.REGRESSION and not entry.informational,
            )
        )
    text = _render(matrix, suite_limit=suite_limit, details=details, cut_note=note, **options)  # type: ignore[arg-type]
    if size(text) > limit:  # never expected: the budget above leaves margins
        text = (
            limits.fit_bytes(text, limit, "\n\n_… truncated_")
            if unit == "byte"
            else text[: limit - 20] + "\n\n_… truncated_"
        )
    return text


def _without_heading(body: str) -> str:
    """A model's own comment without its `###` verdict line: the details' summary says it."""
    first, _, rest = body.partition("\n")
    return rest.lstrip("\n") if first.startswith("### ") else body


def render_matrix_comment(
    matrix: MatrixComparison,
    *,
    title: str = DEFAULT_TITLE,
    full_report_url: str | None = None,
    choice: ModelChoice | None = None,
    max_chars: int = COMMENT_LIMIT,
    max_bytes: int | None = None,
    uncovered_tools: Sequence[str] = (),
) -> str:
    """The PR comment within `max_chars` (or `max_bytes` UTF-8 bytes: a check-run
    summary): one model's layout (`render_comment`) for a run without `models:`, else the
    matrix's. `choice` (`model_choice.choose_models` over the head reports) gives the
    latency column and the *Which model?* section; `uncovered_tools` are named once, in
    the first model's details."""
    if matrix.single is not None:
        return render_comment(
            matrix.single,
            title=title,
            full_report_url=full_report_url,
            max_chars=max_chars,
            max_bytes=max_bytes,
            uncovered_tools=uncovered_tools,
        )
    where = full_report_url or "this workflow run's job summary and JSON reports"
    first = matrix.entries[0].label if matrix.entries else ""
    measure = len if max_bytes is None else limits.utf8_len

    def detail(entry: MatrixEntry, budget: int) -> str:
        kwargs = {"max_bytes": budget} if max_bytes is not None else {"max_chars": budget}
        return render_comment(
            entry.comparison,
            title=entry.label,
            uncovered_tools=uncovered_tools if entry.label == first else (),
            **kwargs,  # type: ignore[arg-type]
        )

    return _fit(
        matrix,
        measure,
        max_chars if max_bytes is None else max_bytes,
        detail,
        unit="character" if max_bytes is None else "byte",
        where=where,
        title=title,
        choice=choice,
        full_report_url=full_report_url,
    )


def render_matrix_summary(
    matrix: MatrixComparison,
    *,
    title: str = DEFAULT_TITLE,
    full_report_url: str | None = None,
    choice: ModelChoice | None = None,
    max_bytes: int,
) -> str:
    """The job summary: one model's (`render_summary`) for a run without `models:`, else
    the comment's layout with each model's full job summary inside."""
    if matrix.single is not None:
        return render_summary(
            matrix.single, title=title, full_report_url=full_report_url, max_bytes=max_bytes
        )
    where = full_report_url or "the JSON reports of this run"

    def detail(entry: MatrixEntry, budget: int) -> str:
        return render_summary(entry.comparison, title=entry.label, max_bytes=budget)

    return _fit(
        matrix,
        limits.utf8_len,
        max_bytes,
        detail,
        unit="byte",
        where=where,
        title=title,
        choice=choice,
        full_report_url=full_report_url,
    )


__all__ = ["render_matrix_comment", "render_matrix_summary"]

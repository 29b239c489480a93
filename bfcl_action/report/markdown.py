"""PR comment and job summary Markdown, rendered from `comment.md.j2`, within size caps.

The template environment escapes every expression with `escape.md_inline` unless a filter
marked its output `Safe`, so untrusted text cannot slip through a forgotten filter. When a
comment would exceed GitHub's cap, flipped-case details are dropped first (the most
important ones, newly failing, are kept longest), then suite rows, and a note says what was
left out and where the full report is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jinja2

from bfcl_action.compare.impact import WordChange
from bfcl_action.compare.runs import (
    VERDICT_TEXT,
    WITHIN_NOISE,
    Comparison,
    FlippedCase,
    SideScore,
    SuiteComparison,
    Verdict,
    p_text,
    percent,
)
from bfcl_action.core.categories import natural_key
from bfcl_action.core.records import RunCost
from bfcl_action.report import github_limits as limits
from bfcl_action.report.coverage import generate_command
from bfcl_action.safety import escape

COMMENT_LIMIT = limits.COMMENT_BODY.size
"""GitHub's cap on an issue or PR comment body, in characters."""
SUMMARY_LIMIT = limits.JOB_SUMMARY.size
"""GitHub's cap on `$GITHUB_STEP_SUMMARY` per step, in bytes."""

DEFAULT_TITLE = "BFCL function-calling check"
HEADLINE_LIMIT = 10
"""Suites named in the headline; the table and the full report have the rest."""


class Safe(str):
    """Text already made safe for Markdown by a filter; the finalizer leaves it alone."""

    __slots__ = ()


def _finalize(value: Any) -> str:
    if isinstance(value, Safe):
        return value
    return escape.md_inline("" if value is None else value)


_ICONS = {
    Verdict.REGRESSION: "❌",
    Verdict.IMPROVEMENT: "✅",
    Verdict.UNCHANGED: "➖",
    Verdict.NO_BASELINE: "📊",
    Verdict.INCOMPARABLE: "⚠️",
    Verdict.NEW: "🆕",
    Verdict.REMOVED: "🗑️",
}
_TEXT = VERDICT_TEXT
NOISE_ICON = "〰️"


def _headline_icon(comparison: Comparison) -> Safe:
    """The comment title's icon: the one of its verdict text (within noise has its own)."""
    if comparison.verdict_text == WITHIN_NOISE:
        return Safe(NOISE_ICON)
    return Safe(_ICONS[comparison.verdict])


def _score(side: SideScore | None) -> Safe:
    return Safe("—" if side is None else percent(side.accuracy) + ("%" if side.total else ""))


def _score_ci(side: SideScore | None) -> Safe:
    if side is None:
        return Safe("—")
    text = (
        f"{percent(side.accuracy)} ({percent(side.low)}–{percent(side.high)})"
        if side.total
        else "—"
    )
    if side.infra_errors:
        text += f" · {side.infra_errors} infra"
    return Safe(text)


def _delta(points: float | None) -> Safe:
    if points is None:
        return Safe("—")
    if round(points, 1) == 0:
        return Safe("±0.0")
    return Safe(f"+{points:.1f}" if points > 0 else f"−{-points:.1f}")


def _pval(p: float | None) -> Safe:
    return Safe("—" if p is None else p_text(p))


def _row_verdict(row: SuiteComparison) -> Safe:
    """The table's verdict cell: a move larger than allowed but not significant says so."""
    if row.within_noise and row.verdict is Verdict.UNCHANGED:
        return Safe(f"{NOISE_ICON} {WITHIN_NOISE}")
    return Safe(f"{_ICONS[row.verdict]} {_TEXT[row.verdict]}")


CONTEXT_WORDS = 6
"""Unchanged words kept on each side of a change in a word diff; the rest become `…`."""


def _word_diff(words: Sequence[WordChange], limit: int | None = None) -> Safe:
    """A description diff as Markdown: removed words struck through, added words bold.

    Long unchanged runs keep `CONTEXT_WORDS` words next to each change; every word is
    escaped, so only the diff's own markup is Markdown.
    """
    parts: list[str] = []
    for i, run in enumerate(words):
        text = run.text
        if run.op == "same":
            tokens = text.split()
            keep_left = i > 0
            keep_right = i < len(words) - 1
            budget = CONTEXT_WORDS * (keep_left + keep_right)
            if len(tokens) > budget + 1:
                left = tokens[:CONTEXT_WORDS] if keep_left else []
                right = tokens[-CONTEXT_WORDS:] if keep_right else []
                text = " ".join([*left, "…", *right])
            parts.append(escape.md_inline(text, limit))
        elif run.op == "removed":
            parts.append(f"~~{escape.md_inline(text, limit)}~~")
        else:
            parts.append(f"**{escape.md_inline(text, limit)}**")
    return Safe(" ".join(p for p in parts if p) or "(empty)")


def _significance(row: SuiteComparison) -> Safe:
    """The p the verdict used (a suite's Holm-adjusted), bold when significant."""
    if row.paired is None:
        return Safe("—")
    text = _pval(row.paired.p_decisive)
    return Safe(f"**{text}**" if row.significant else text)


def _num(value: float | int) -> Safe:
    if isinstance(value, float) and not value.is_integer():
        return Safe(f"{value:g}")
    return Safe(f"{int(value):,}")


_URL = re.compile(r"^https?://[^\s()<>\"'`]+$")


def _url(value: str) -> Safe:
    """Only plain http(s) URLs without characters that could end the link early."""
    return Safe(value if _URL.match(value) else "#")


def _md(value: Any, limit: int | None = None) -> Safe:
    return Safe(escape.md_inline(value, limit))


def _code(value: Any, limit: int | None = None) -> Safe:
    return Safe(escape.md_code(value, limit))


def _code_cell(value: Any, limit: int | None = None) -> Safe:
    return Safe(escape.md_code(value, limit, in_table=True))


def _cost_text(cost: RunCost) -> Safe:
    """The head run's tokens and dollars, one line (numbers only: nothing untrusted)."""
    tokens = (
        f"{cost.input_tokens:,} prompt tokens ({cost.cached_tokens:,} prompt-cached), "
        f"{cost.output_tokens:,} completion tokens"
    )
    if cost.cost_usd is None or cost.full_cost_usd is None:
        return Safe(
            f"Tokens: {tokens} · no price for this model: add it under `pricing:` in "
            "`.bfcl.yml` to see dollars"
        )
    extra = f", {cost.batch:,} answers by batch" if cost.batch else ""
    return Safe(
        f"Cost: **${cost.cost_usd:,.4f}** this run (${cost.full_cost_usd:,.4f} with nothing "
        f"reused{extra}) · {tokens}"
    )


def _cell(row: SuiteComparison | None) -> Safe:
    """A model x suite cell of the matrix comment: score, change and p, verdict icon."""
    if row is None or row.head is None:
        return Safe("—")
    text = _score(row.compared_head or row.head)
    if row.delta_points is not None:
        moved = f"{_delta(row.delta_points)}"
        if row.paired is not None and round(row.delta_points, 1) != 0:
            moved += f", p {_pval(row.paired.p_decisive)}"
        text = Safe(f"{text} ({'**' + moved + '**' if row.significant else moved})")
    if row.verdict in (Verdict.REGRESSION, Verdict.IMPROVEMENT):
        text = Safe(f"{text} {_ICONS[row.verdict]}")
    return Safe(text)


def _dollars(cost: RunCost | None) -> Safe:
    if cost is None or cost.cost_usd is None:
        return Safe("—")
    return Safe(f"${cost.cost_usd:,.4f}")


def _latency(value: tuple[float | None, float | None] | None) -> Safe:
    if value is None or value[0] is None:
        return Safe("—")
    p50, p95 = value
    return Safe(f"{p50:.2f} / {p95:.2f} s" if p95 is not None else f"{p50:.2f} s")


def _html_text(value: Any) -> Safe:
    """Text inside an HTML element (a `<summary>`): `escape.html_text`, the one defuser."""
    return Safe(escape.html_text(value))


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("bfcl_action.report", "templates"),
        autoescape=False,  # noqa: S701 -- Markdown, not HTML: `_finalize` escapes every value
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    filters: dict[str, Callable[..., Any]] = {
        "icon": lambda v: Safe(_ICONS[v]),
        "headline_icon": _headline_icon,
        "verdict_text": lambda v: Safe(_TEXT[v]),
        "score": _score,
        "score_ci": _score_ci,
        "delta": _delta,
        "pval": _pval,
        "row_verdict": _row_verdict,
        "word_diff": _word_diff,
        "significance": _significance,
        "num": _num,
        "url": _url,
        "md": _md,
        "code": _code,
        "code_cell": _code_cell,
        "json": _json,
        "cost_text": _cost_text,
        "cell": _cell,
        "dollars": _dollars,
        "latency": _latency,
        "html_text": _html_text,
    }
    env.filters.update(filters)
    return env


_ENV = _environment()


def template(name: str) -> jinja2.Template:
    """A template of `templates/` in this environment (escaping finalizer, filters), for the
    other Markdown views (`report.model_choice`, `report.matrix`)."""
    return _ENV.get_template(name)


@dataclass
class _ShownFlip:
    flip: FlippedCase
    same_as: str | None = None
    """Another listed case of the same question that flipped the same way with the same
    answer and reasons: this one is then a line, not a repeat of its details."""


@dataclass
class _FlipGroup:
    suite: str
    flips: list[_ShownFlip]


def _flip_groups(comparison: Comparison, limit: int | None) -> tuple[list[_FlipGroup], int]:
    """Flipped cases by suite, newly failing first (regressed suites first), up to `limit`.

    A question's distractor variants usually flip with it, the same way and with the same
    answer: those are listed in one line each, pointing at the case shown in full (the
    question's own case when it is listed, else the first variant), and their suites come
    after the suites with cases shown in full."""
    rank = {Verdict.REGRESSION: 0}
    suites = sorted(comparison.suites, key=lambda s: (rank.get(s.verdict, 1), natural_key(s.suite)))
    ordered = [f for s in suites for f in s.flipped if f.direction == "newly_failing"]
    ordered += [f for s in suites for f in s.flipped if f.direction == "newly_passing"]
    shown = ordered if limit is None else ordered[:limit]

    def same(flip: FlippedCase) -> tuple[object, ...]:
        return (flip.cluster_id, flip.direction, flip.error_type, flip.got, tuple(flip.errors))

    full: dict[tuple[object, ...], FlippedCase] = {}
    for flip in shown:  # the question's own case first, else the first listed
        key = same(flip)
        if key not in full or flip.id == flip.cluster_id:
            full[key] = flip
    groups: dict[str, _FlipGroup] = {}
    for flip in shown:
        first = full[same(flip)]
        entry = _ShownFlip(flip, None if first is flip else first.id)
        groups.setdefault(flip.suite, _FlipGroup(flip.suite, [])).flips.append(entry)
    # suites with cases shown in full before those whose cases only point at them
    listed = sorted(groups.values(), key=lambda g: all(e.same_as for e in g.flips))
    return listed, len(shown)


def _render(
    comparison: Comparison,
    *,
    title: str,
    flip_limit: int | None,
    row_limit: int | None,
    text_limit: int,
    list_limit: int,
    charts: Sequence[tuple[str, str]],
    full_report_url: str | None,
    cut_note: str | None,
    uncovered_tools: Sequence[str] = (),
) -> str:
    groups, shown = _flip_groups(comparison, flip_limit)
    flips = comparison.flipped
    rows = comparison.suites
    if row_limit is not None:  # keep the suites that moved, then the others, in table order
        keep = sorted(rows, key=lambda s: not s.moved)[:row_limit]
        rows = [s for s in rows if any(s is k for k in keep)]
    return _ENV.get_template("comment.md.j2").render(
        comparison=comparison,
        title=title,
        rows=rows,
        rows_left_out=len(comparison.suites) - len(rows),
        flip_groups=groups,
        flips_shown=shown,
        flips_total=len(flips),
        failing_total=sum(f.direction == "newly_failing" for f in flips),
        passing_total=sum(f.direction == "newly_passing" for f in flips),
        text_limit=text_limit,
        list_limit=list_limit,
        charts=list(charts),
        full_report_url=full_report_url,
        cut_note=cut_note,
        headline_limit=HEADLINE_LIMIT,
        uncovered_tools=list(uncovered_tools),
        generate_command=generate_command(list(uncovered_tools)),
    )


def _fit(
    comparison: Comparison,
    size: Callable[[str], int],
    limit: int,
    *,
    where: str,
    unit: str = "character",
    **options: Any,
) -> str:
    """Render within `limit`: all details if they fit, else as many flips (then rows) as do."""
    flips_total = len(comparison.flipped)
    rows_total = len(comparison.suites)

    def attempt(flip_limit: int | None, row_limit: int | None) -> str:
        note = None
        if flip_limit is not None or row_limit is not None:
            left = []
            if flip_limit is not None and flip_limit < flips_total:
                left.append(f"{flips_total - flip_limit:,} of {flips_total:,} flipped cases")
            if row_limit is not None and row_limit < rows_total:
                left.append(f"{rows_total - row_limit:,} of {rows_total:,} suites")
            # our own counts and run URL (not untrusted text): a live link, not a defused one
            note = Safe(
                f"Cut to fit the {limit:,}-{unit} limit: {' and '.join(left) or 'details'} "
                f"not shown. The full report is in {where}."
            )
        return _render(
            comparison, flip_limit=flip_limit, row_limit=row_limit, cut_note=note, **options
        )

    text = attempt(None, None)
    if size(text) <= limit:
        return text
    best = _largest(lambda n: size(attempt(n, None)) <= limit, flips_total)
    if best is not None:
        return attempt(best, None)
    best_rows = _largest(lambda n: size(attempt(0, n)) <= limit, rows_total)
    if best_rows is not None:
        return attempt(0, best_rows)
    text = attempt(0, 0)
    marker = "\n\n> ✂️ Truncated; the full report is in " + escape.md_inline(where) + ".\n"
    while text and size(text) + size(marker) > limit:
        text = text[: len(text) * 9 // 10].rsplit("\n", 1)[0]
    return text + marker


def _largest(fits: Callable[[int], bool], upper: int) -> int | None:
    """Largest n in [0, upper] with fits(n), assuming fits is monotone; None if none fits."""
    if not fits(0):
        return None
    low, high = 0, upper
    while low < high:
        mid = (low + high + 1) // 2
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    return low


def render_comment(
    comparison: Comparison,
    *,
    title: str = DEFAULT_TITLE,
    full_report_url: str | None = None,
    charts: Sequence[tuple[str, str]] = (),
    max_chars: int = COMMENT_LIMIT,
    max_bytes: int | None = None,
    uncovered_tools: Sequence[str] = (),
) -> str:
    """The PR comment: headline, per-suite table, collapsed details; at most `max_chars`.

    `uncovered_tools` (`report.coverage.tools_without_cases`) are named with the command
    that would draft cases for them.

    With `max_bytes` the budget is UTF-8 bytes instead (a check-run summary, which GitHub
    measures in bytes). `charts` are `(alt text, image URL)` pairs (GitHub shows SVG images
    by URL, not inline).
    """
    where = full_report_url or "this workflow run's job summary and JSON report"
    return _fit(
        comparison,
        len if max_bytes is None else limits.utf8_len,
        max_chars if max_bytes is None else max_bytes,
        where=where,
        unit="character" if max_bytes is None else "byte",
        title=title,
        text_limit=300,
        list_limit=20,
        charts=charts,
        full_report_url=full_report_url,
        uncovered_tools=uncovered_tools,
    )


def render_summary(
    comparison: Comparison,
    *,
    title: str = DEFAULT_TITLE,
    full_report_url: str | None = None,
    charts: Sequence[tuple[str, str]] = (),
    max_bytes: int = SUMMARY_LIMIT,
) -> str:
    """The job summary: the comment's layout with every detail, within `max_bytes` (UTF-8)."""
    return _fit(
        comparison,
        limits.utf8_len,
        max_bytes,
        where=full_report_url or "the JSON report of this run",
        unit="byte",
        title=title,
        text_limit=2000,
        list_limit=10_000,
        charts=charts,
        full_report_url=full_report_url,
    )


def render_json(comparison: Comparison) -> str:
    """The comparison as JSON for machines (the pydantic model, plus `fails`)."""
    return comparison.model_dump_json(indent=2)

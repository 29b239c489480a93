"""SVG charts: per-suite scores across a history of runs, and accuracy vs number of tools.

Plain SVG 1.1 with a white background, system fonts and tooltips, so it reads the same in a
browser and as an image in a PR comment (GitHub shows SVG by URL, e.g. an uploaded artifact
or a committed file). Geometry is computed here; `chart.svg.j2` only draws it, autoescaped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import jinja2
import markupsafe

from bfcl_action.compare.history import HistoryRecord, chart_label
from bfcl_action.compare.stats import wilson_interval
from bfcl_action.core.records import RunReport
from bfcl_action.results.digest import RunDigest
from bfcl_action.safety.escape import xml_text

PALETTE = [
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#999999",
    "#882255",
    "#44AA99",
]
"""Okabe-Ito (colour-blind safe), extended."""

WIDTH, HEIGHT = 760, 380
PAD = 16
"""Horizontal inset of the first and last point from the axes."""
CHAR_WIDTH = 7
"""Approximate width of a 12px label character, to keep tick labels from overlapping."""
MAX_LEGEND = 16

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("bfcl_action.report", "templates"),
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
    undefined=jinja2.StrictUndefined,
    # macro output (the markers) is already markup; every other string is made XML-safe
    finalize=lambda v: (
        v if isinstance(v, markupsafe.Markup) or not isinstance(v, str) else (xml_text(v))
    ),
)


@dataclass
class _Plot:
    left: float = 56
    right: float = WIDTH - 200
    top: float = 40
    bottom: float = HEIGHT - 56

    def y(self, accuracy: float) -> float:
        return round(self.bottom - accuracy * (self.bottom - self.top), 1)


@dataclass
class _Point:
    x: float
    y: float
    tip: str
    low_y: float | None = None
    high_y: float | None = None


MARKERS = ["circle", "square", "triangle", "diamond", "down", "cross"]
"""Marker shapes cycled across series, so lines that sit on each other stay distinguishable."""
DASHES = ["", "6 3", "2 3", "8 3 2 3"]
"""Stroke patterns cycled across series (after the shapes), for the same reason."""


@dataclass
class _Series:
    label: str
    color: str
    width: float = 2
    marker: str = "circle"
    dash: str = ""
    points: list[_Point] = field(default_factory=list)
    segments: list[list[_Point]] = field(default_factory=list)

    def shape(self) -> tuple[tuple[float, float], ...]:
        return tuple((p.x, p.y) for p in self.points)


def _style(series: list[_Series]) -> None:
    """Give every series its own marker and dash pattern; `overall` keeps a plain line."""
    plain = [s for s in series if s.label != "overall"]
    for index, s in enumerate(plain):
        s.marker = MARKERS[index % len(MARKERS)]
        s.dash = DASHES[(index // len(MARKERS)) % len(DASHES)]


def _overlaps(series: list[_Series]) -> list[str]:
    """Legend notes for series drawn exactly on top of each other (same points)."""
    groups: dict[tuple[tuple[float, float], ...], list[str]] = {}
    for s in series:
        if s.points:
            groups.setdefault(s.shape(), []).append(s.label)
    return [f"{' = '.join(names)}: same scores" for names in groups.values() if len(names) > 1]


def distinct_labels(labels: Sequence[str]) -> list[str]:
    """Labels made unique: a repeated label gets ` #2`, ` #3`, ... in order of appearance."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    if len(set(out)) != len(out):  # a label already ended in " #2": number every one
        out = [f"{label} #{i + 1}" for i, label in enumerate(labels)]
    return out


def _y_ticks(plot: _Plot) -> list[dict[str, object]]:
    return [{"y": plot.y(v / 100), "label": f"{v}%"} for v in range(0, 101, 20)]


def _legend(series: list[_Series], plot: _Plot) -> list[dict[str, object]]:
    items: list[dict[str, object]] = [
        {
            "x": plot.right + 16,
            "y": plot.top + 8 + 18 * i,
            "color": s.color,
            "label": s.label,
            "marker": s.marker,
            "dash": s.dash,
            "width": s.width,
        }
        for i, s in enumerate(series[:MAX_LEGEND])
    ]
    extra = [f"+{len(series) - MAX_LEGEND} more"] if len(series) > MAX_LEGEND else []
    for offset, text in enumerate([*extra, *_overlaps(series)]):
        items.append(
            {
                "x": plot.right + 16,
                "y": plot.top + 8 + 18 * (min(len(series), MAX_LEGEND) + offset),
                "color": "",
                "label": text,
                "marker": "",
                "dash": "",
                "width": 0,
            }
        )
    return items


def _draw(
    title: str, x_title: str, plot: _Plot, x_ticks: list[dict[str, object]], series: list[_Series]
) -> str:
    _style(series)
    return _ENV.get_template("chart.svg.j2").render(
        width=WIDTH,
        height=HEIGHT,
        title=title,
        x_title=x_title,
        y_title="accuracy",
        plot=plot,
        y_ticks=_y_ticks(plot),
        x_ticks=x_ticks,
        series=series,
        legend=_legend(series, plot),
    )


def _suite_counts(report: RunReport | RunDigest) -> dict[str, tuple[int, int]]:
    if isinstance(report, RunDigest):
        return {k: (v.correct, v.total) for k, v in report.suites.items()}
    counts: dict[str, tuple[int, int]] = {}
    if report.results:
        for r in report.results:
            if r.infra_error:
                continue
            correct, total = counts.get(r.label(), (0, 0))
            counts[r.label()] = (correct + int(r.valid), total + 1)
    else:
        counts = {k: (v.correct, v.total) for k, v in report.categories.items()}
    return counts


def history_chart(records: Sequence[HistoryRecord], *, title: str, last: int = 52) -> str:
    """The trend chart of a history file's newest `last` records (`render_history_svg`)."""
    shown = list(records)[-last:]
    return render_history_svg(
        [r.as_digest() for r in shown], labels=[chart_label(r) for r in shown], title=title
    )


def render_history_svg(
    reports: Sequence[RunReport | RunDigest],
    *,
    labels: Sequence[str] | None = None,
    title: str = "BFCL scores by suite",
) -> str:
    """Per-suite accuracy across `reports` (oldest first), plus the pooled overall line.

    Digests work as well as reports, so a history can be rebuilt from earlier check runs.

    `labels` name the x positions (default: each report's date, or its index); a label may
    hold two lines (`"2026-11-30\\nab12cd3"`), and repeated labels get ` #2`, ` #3`, so every
    run has its own tick. Every series has its own marker and dash pattern, and series drawn
    exactly on top of each other are named together in the legend.
    """
    plot = _Plot()
    n = len(reports)
    labels = distinct_labels(
        list(labels)
        if labels is not None
        else [(r.created_at[:10] or f"run {i + 1}") for i, r in enumerate(reports)]
    )
    inner_left, inner_right = plot.left + PAD, plot.right - PAD
    step = (inner_right - inner_left) / max(1, n - 1)
    xs = [
        round(inner_left + step * i if n > 1 else (plot.left + plot.right) / 2, 1) for i in range(n)
    ]
    widest = max((len(line) for lb in labels for line in lb.split("\n")), default=1)
    widest = widest * CHAR_WIDTH + 10
    every = max(1, math.ceil(widest / step)) if n > 1 else 1
    shown = list(range(0, n, every))
    if shown and shown[-1] != n - 1:  # always label the latest run, dropping a crowded one
        shown[-1 if n - 1 - shown[-1] < every else len(shown) :] = [n - 1]
    x_ticks: list[dict[str, object]] = [
        {"x": xs[i], "label": labels[i], "lines": labels[i].split("\n")} for i in shown
    ]
    per_report = [_suite_counts(r) for r in reports]
    names = sorted({name for counts in per_report for name in counts})
    table: dict[str, list[tuple[int, int] | None]] = {
        name: [counts.get(name) for counts in per_report] for name in names
    }
    table["overall"] = [
        (sum(c for c, _ in counts.values()), sum(t for _, t in counts.values())) if counts else None
        for counts in per_report
    ]
    series = []
    for index, name in enumerate([*names, "overall"]):
        color = "#24292f" if name == "overall" else PALETTE[index % len(PALETTE)]
        s = _Series(label=name, color=color, width=3 if name == "overall" else 2)
        segment: list[_Point] = []
        for i, cell in enumerate(table[name]):
            if cell is None or cell[1] == 0:
                if segment:
                    s.segments.append(segment)
                segment = []
                continue
            accuracy = cell[0] / cell[1]
            at = labels[i].replace("\n", " ")
            tip = f"{name} @ {at}: {accuracy * 100:.1f}% ({cell[0]}/{cell[1]})"
            point = _Point(x=xs[i], y=plot.y(accuracy), tip=tip)
            s.points.append(point)
            segment.append(point)
        if segment:
            s.segments.append(segment)
        if s.points:
            series.append(s)
    return _draw(title, "run", plot, x_ticks, series)


_DISTRACTOR_LABEL = re.compile(r"_k(\d+)$")


def tool_count_curve(
    report: RunReport, category: str = "own_distractors"
) -> list[tuple[int, int, int]]:
    """`(number of tools offered, correct, answered)` per tool count, ascending, over the
    results of `category` (all its suites, e.g. `own_distractors_k4`, `own_distractors_k16`).

    The count is the number of functions offered (each result's `functions`, see
    `compare.attach_case_context`); a result without it counts by the `_k<N>` of its suite
    label (distractors added), and the chart's axis says which it used.
    """
    return _curve(report, category)[0]


def _curve(report: RunReport, category: str) -> tuple[list[tuple[int, int, int]], bool]:
    buckets: dict[int, tuple[int, int]] = {}
    offered = False
    for r in report.results:
        if r.category != category or r.infra_error:
            continue
        if r.functions is not None:
            x, offered = len(r.functions), True
        elif match := _DISTRACTOR_LABEL.search(r.label()):
            x = int(match.group(1))
        else:
            continue
        correct, total = buckets.get(x, (0, 0))
        buckets[x] = (correct + int(r.valid), total + 1)
    return [(k, *buckets[k]) for k in sorted(buckets)], offered


def render_tools_svg(
    report: RunReport | Sequence[tuple[str, RunReport]],
    *,
    category: str = "own_distractors",
    title: str = "Accuracy vs number of tools offered",
) -> str:
    """Accuracy by number of tools in the distractors suites, with Wilson 95% error bars;
    one curve per `(label, report)` when given several (a model matrix: each model's
    distractor curve on one chart)."""
    named = [(category, report)] if isinstance(report, RunReport) else list(report)
    plot = _Plot()
    curves = [(label, *_curve(r, category)) for label, r in named]
    counts = sorted({k for _, curve, _ in curves for k, _, _ in curve})
    offered = any(o for _, _, o in curves)
    unit = "tools" if offered or not counts else "distractors"
    axis = "tools offered" if unit == "tools" else "distractor tools added"
    series: list[_Series] = []
    x_ticks: list[dict[str, object]] = []
    if counts:
        lo, hi = counts[0], counts[-1]
        # Tool counts usually double (1, 2, 4, ... 64): a log scale (of 1 + count, so 0
        # distractors fits) spaces them evenly.
        log = hi / max(lo, 1) >= 8

        def scale(k: int) -> float:
            return math.log2(1 + k) if log else float(k)

        def x_of(k: int) -> float:
            if hi == lo:
                return round((plot.left + plot.right) / 2, 1)
            share = (scale(k) - scale(lo)) / (scale(hi) - scale(lo))
            return round(plot.left + PAD + share * (plot.right - plot.left - 2 * PAD), 1)

        labels = distinct_labels([label for label, _, _ in curves])
        for index, ((_, curve, _), label) in enumerate(zip(curves, labels, strict=True)):
            if not curve:
                continue
            s = _Series(label=label, color=PALETTE[index % len(PALETTE)])
            for k, correct, total in curve:
                low, high = wilson_interval(correct, total)
                s.points.append(
                    _Point(
                        x=x_of(k),
                        y=plot.y(correct / total),
                        tip=(f"{label}, " if len(curves) > 1 else "")
                        + f"{k} {unit}: {correct / total * 100:.1f}% ({correct}/{total})",
                        low_y=plot.y(low),
                        high_y=plot.y(high),
                    )
                )
            s.segments.append(s.points)
            series.append(s)
        last = -math.inf
        for k in counts:  # label ticks that do not collide with the previous label
            if x_of(k) - last >= len(str(k)) * CHAR_WIDTH + 8:
                x_ticks.append({"x": x_of(k), "label": str(k), "lines": [str(k)]})
                last = x_of(k)
    return _draw(title, axis, plot, x_ticks, series)

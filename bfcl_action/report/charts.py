"""SVG charts: per-suite scores across a history of runs, and accuracy vs number of tools.

Plain SVG 1.1 with a white background, system fonts and tooltips, so it reads the same in a
browser and as an image in a PR comment (GitHub shows SVG by URL, e.g. an uploaded artifact
or a committed file). Geometry is computed here; `chart.svg.j2` only draws it, autoescaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import jinja2

from bfcl_action.escape import xml_text
from bfcl_action.models import RunReport
from bfcl_action.stats import wilson_interval

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
MAX_LEGEND = 16

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("bfcl_action.report", "templates"),
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
    undefined=jinja2.StrictUndefined,
    finalize=lambda v: xml_text(v) if isinstance(v, str) else v,
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


@dataclass
class _Series:
    label: str
    color: str
    width: float = 2
    points: list[_Point] = field(default_factory=list)
    segments: list[list[_Point]] = field(default_factory=list)


def _y_ticks(plot: _Plot) -> list[dict[str, object]]:
    return [{"y": plot.y(v / 100), "label": f"{v}%"} for v in range(0, 101, 20)]


def _legend(series: list[_Series], plot: _Plot) -> list[dict[str, object]]:
    items: list[dict[str, object]] = [
        {"x": plot.right + 16, "y": plot.top + 8 + 18 * i, "color": s.color, "label": s.label}
        for i, s in enumerate(series[:MAX_LEGEND])
    ]
    if len(series) > MAX_LEGEND:
        items.append(
            {
                "x": plot.right + 16,
                "y": plot.top + 8 + 18 * MAX_LEGEND,
                "color": "#ffffff",
                "label": f"+{len(series) - MAX_LEGEND} more",
            }
        )
    return items


def _draw(
    title: str, x_title: str, plot: _Plot, x_ticks: list[dict[str, object]], series: list[_Series]
) -> str:
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


def _suite_counts(report: RunReport) -> dict[str, tuple[int, int]]:
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


def render_history_svg(
    reports: Sequence[RunReport],
    *,
    labels: Sequence[str] | None = None,
    title: str = "BFCL scores by suite",
) -> str:
    """Per-suite accuracy across `reports` (oldest first), plus the pooled overall line.

    `labels` name the x positions (default: each report's date, or its index).
    """
    plot = _Plot()
    n = len(reports)
    labels = (
        list(labels)
        if labels is not None
        else [(r.created_at[:10] or str(i + 1)) for i, r in enumerate(reports)]
    )
    step = (plot.right - plot.left) / max(1, n - 1)
    xs = [
        round(plot.left + (step * i if n > 1 else (plot.right - plot.left) / 2), 1)
        for i in range(n)
    ]
    every = max(1, n // 8)
    x_ticks: list[dict[str, object]] = [
        {"x": xs[i], "label": labels[i]} for i in range(n) if i % every == 0 or i == n - 1
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
            tip = f"{name} @ {labels[i]}: {accuracy * 100:.1f}% ({cell[0]}/{cell[1]})"
            point = _Point(x=xs[i], y=plot.y(accuracy), tip=tip)
            s.points.append(point)
            segment.append(point)
        if segment:
            s.segments.append(segment)
        if s.points:
            series.append(s)
    return _draw(title, "run", plot, x_ticks, series)


def tool_count_curve(
    report: RunReport, suite: str = "own_distractors"
) -> list[tuple[int, int, int]]:
    """`(number of tools offered, correct, answered)` per tool count in `suite`, ascending.

    Needs each result's `functions` (see `compare.attach_case_context`); results without it
    are skipped.
    """
    buckets: dict[int, tuple[int, int]] = {}
    for r in report.results:
        if r.label() != suite or r.infra_error or r.functions is None:
            continue
        correct, total = buckets.get(len(r.functions), (0, 0))
        buckets[len(r.functions)] = (correct + int(r.valid), total + 1)
    return [(k, *buckets[k]) for k in sorted(buckets)]


def render_tools_svg(
    report: RunReport,
    *,
    suite: str = "own_distractors",
    title: str = "Accuracy vs number of tools offered",
) -> str:
    """Accuracy by number of tools in the distractors suite, with Wilson 95% error bars."""
    plot = _Plot()
    curve = tool_count_curve(report, suite)
    series: list[_Series] = []
    x_ticks: list[dict[str, object]] = []
    if curve:
        lo, hi = curve[0][0], curve[-1][0]
        span = max(1, hi - lo)

        def x_of(k: int) -> float:
            if hi == lo:
                return round((plot.left + plot.right) / 2, 1)
            return round(plot.left + (k - lo) / span * (plot.right - plot.left), 1)

        s = _Series(label=suite, color=PALETTE[0])
        for k, correct, total in curve:
            low, high = wilson_interval(correct, total)
            s.points.append(
                _Point(
                    x=x_of(k),
                    y=plot.y(correct / total),
                    tip=f"{k} tools: {correct / total * 100:.1f}% ({correct}/{total})",
                    low_y=plot.y(low),
                    high_y=plot.y(high),
                )
            )
        s.segments.append(s.points)
        series.append(s)
        every = max(1, len(curve) // 10)
        x_ticks = [
            {"x": x_of(k), "label": str(k)}
            for i, (k, _, _) in enumerate(curve)
            if i % every == 0 or i == len(curve) - 1
        ]
    return _draw(title, "tools offered", plot, x_ticks, series)

"""The funnel, printed for people (rich table) and as Markdown for the data PR body."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from curation.build import BuildReport

DROPS_SHOWN = 20


def print_funnel(report: BuildReport, console: Console | None = None) -> None:
    console = console or Console()
    table = Table(title=f"Live {report.version} (parent {report.parent or 'none'})")
    for col in ("stage", "entered", "kept", "dropped (reason: n)"):
        table.add_column(col)
    for s in report.funnel:
        dropped = ", ".join(f"{r}: {n}" for r, n in s.dropped.items()) or "-"
        table.add_row(s.stage, str(s.entered), str(s.kept), dropped)
    console.print(table)
    shown = report.drops[:DROPS_SHOWN]
    for d in shown:
        console.print(
            f"dropped {d.origin.kind}:{d.origin.ref}: {d.reason}: {d.detail}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    if len(report.drops) > len(shown):
        console.print(f"... and {len(report.drops) - len(shown)} more in the report (--report)")
    if report.scrubbed:
        console.print("scrubbed: " + ", ".join(f"{k} {v}" for k, v in report.scrubbed.items()))
    for note in report.notes:
        console.print(f"note: {note}")
    if report.released:
        console.print(f"released {report.version}: +{report.added}, {report.total} in all")
    else:
        console.print("nothing to release: no new items and no withdrawals")


def funnel_markdown(report: BuildReport) -> str:
    lines = [
        f"Live release **{report.version}** (parent {report.parent or 'none'}): "
        f"+{report.added} new, {report.total} in all.",
        "",
        "| stage | entered | kept | dropped |",
        "| --- | ---: | ---: | --- |",
    ]
    for s in report.funnel:
        dropped = ", ".join(f"{r} {n}" for r, n in s.dropped.items()) or "-"
        lines.append(f"| {s.stage} | {s.entered} | {s.kept} | {dropped} |")
    lines += ["", "| category | entries |", "| --- | ---: |"]
    lines += [f"| {c} | {n} |" for c, n in report.counts.items()]
    return "\n".join(lines) + "\n"

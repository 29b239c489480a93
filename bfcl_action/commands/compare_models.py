"""`bfcl-action compare-models`: which model is best on your cases, from one run per model.

Give the run reports of several models over the same cases (a `models:` matrix run, or
`bfcl-action run --model ... --output` once per model). Models are paired case by case (exact
sign test over question clusters; per-suite tests Holm-adjusted); a model is called the clear
best only when it is significantly better than every other. Each report's name is its
matrix entry (`label`) or its model.

Exit codes: 0 the view was written, 2 usage or input error (fewer than two reports, a report
that cannot be read, reports with no case in common).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bfcl_action.compare.model_choice import choose_models, display_names
from bfcl_action.core.errors import InputError
from bfcl_action.core.records import RunReport
from bfcl_action.report.model_choice import (
    render_model_choice_json,
    render_model_choice_markdown,
    render_model_choice_text,
    verdict_text,
)
from bfcl_action.results.run_reports import load_report
from bfcl_action.safety import escape
from bfcl_action.safety.numbers import number


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "compare-models",
        help="which model is best on your cases: paired tests between models' run reports",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "reports",
        type=Path,
        nargs="+",
        metavar="REPORT",
        help="run report JSON of one model (at least two), in the order tables show them",
    )
    p.add_argument(
        "--alpha",
        type=number,
        default=0.05,
        help="significance level of the paired tests (sign test over question clusters; "
        "default 0.05)",
    )
    p.add_argument(
        "--format",
        choices=("text", "markdown", "json"),
        default="text",
        help="text for a terminal (default), markdown for a PR comment or summary, json",
    )
    p.add_argument("--output", type=Path, metavar="PATH", help="write there instead of stdout")
    p.add_argument(
        "--svg-tools",
        type=Path,
        metavar="PATH",
        help="also draw every model's distractor curve (accuracy vs number of tools offered) "
        "as one SVG chart",
    )
    p.set_defaults(func=run)


def _check_common(paths: list[Path], reports: list[RunReport]) -> None:
    """Every report must share a case with the others, and some case must be answered by
    all: else there is nothing to rank on. The error names each file and its cases."""
    ids = [{r.id for r in report.results} for report in reports]
    if not set.intersection(*ids):
        first = ids[0]
        strangers = [str(p) for p, own in zip(paths[1:], ids[1:], strict=True) if not own & first]
        named = strangers or [str(p) for p in paths]
        counts = ", ".join(f"{p} ({len(own):,} cases)" for p, own in zip(paths, ids, strict=True))
        raise InputError(
            f"the reports have no case in common ({counts}): run every model over the same "
            "cases (same config and datasets)",
            file=named[0],
        )
    answered = [{r.id for r in report.results if r.infra_error is None} for report in reports]
    if not set.intersection(*answered):
        worst = min(range(len(reports)), key=lambda i: len(answered[i]))
        raise InputError(
            f"no case was answered by every model ({len(answered[worst]):,} of "
            f"{len(ids[worst]):,} answered here; the rest are infrastructure errors)",
            file=str(paths[worst]),
        )


def _load(paths: list[Path]) -> list[RunReport]:
    """The reports; one whose name (matrix entry or model) another report shares, and that
    has no matrix entry name, is named `model (file stem)`, which tells a reader more than
    `model (2)` would."""
    if len(paths) < 2:
        raise InputError(
            "compare-models needs the run reports of at least two models, got one",
            file=str(paths[0]),
        )
    reports = [load_report(p) for p in paths]
    names = [r.label or r.model for r in reports]
    return [
        r.model_copy(update={"label": f"{r.model} ({p.stem})"})
        if not r.label and names.count(r.model) > 1
        else r
        for p, r in zip(paths, reports, strict=True)
    ]


def run(args: argparse.Namespace) -> int:
    if not 0 < args.alpha < 1:
        raise InputError(
            f"expected a number between 0 and 1, found {args.alpha:g}", field="--alpha"
        )
    paths: list[Path] = list(args.reports)
    reports = _load(paths)
    _check_common(paths, reports)
    choice = choose_models(reports, alpha=args.alpha)
    if args.svg_tools is not None:
        from bfcl_action.report.charts import render_tools_svg

        chart = render_tools_svg(
            list(zip(display_names(reports), reports, strict=True)),
            title="Accuracy vs number of tools offered, per model",
        )
        try:
            args.svg_tools.parent.mkdir(parents=True, exist_ok=True)
            args.svg_tools.write_text(chart, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write: {exc.strerror}", file=str(args.svg_tools)) from None
    if args.format == "markdown":
        text = render_model_choice_markdown(choice)
    elif args.format == "json":
        text = render_model_choice_json(choice)
    else:
        text = render_model_choice_text(choice)
    if args.output is None:
        print(text, end="")
        return 0
    try:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", file=str(args.output)) from None
    names = ", ".join(display_names(reports))
    print(escape.log_line(f"bfcl-action compare-models: {verdict_text(choice)}"))
    print(escape.log_line(f"  {len(reports)} models ({names}); wrote {args.output}"))
    return 0

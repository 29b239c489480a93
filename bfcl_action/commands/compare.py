"""`bfcl-action compare`: compare a run with its baseline and write the reports.

Exit codes: 0 no regression (also: first run, incomparable runs, informational mode),
1 regression (a significant drop beyond the allowed points, or a minimum score breached),
2 usage or input error.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from bfcl_action.compare.impact import ToolChange
from bfcl_action.compare.runs import Comparison, compare_runs
from bfcl_action.core.errors import ConfigError, InputError
from bfcl_action.core.records import RunReport
from bfcl_action.report import (
    render_comment,
    render_history_svg,
    render_json,
    render_junit,
    render_summary,
    render_tools_svg,
)
from bfcl_action.results.digest import RunDigest, make_digest
from bfcl_action.results.run_reports import load_baseline, load_report
from bfcl_action.safety import escape
from bfcl_action.safety.numbers import number
from bfcl_action.settings.config import load_config
from bfcl_action.settings.resolve import resolve_thresholds
from bfcl_action.settings.thresholds import ThresholdOverrides, Thresholds


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "compare",
        help="compare a run report with its baseline (report or digest) and render reports",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--base", type=Path, help="baseline run report JSON, or a file holding a digest")
    p.add_argument("--head", type=Path, required=True, help="this run's report JSON")
    p.add_argument("--config", type=Path, help=".bfcl.yml whose `thresholds` apply")
    p.add_argument("--markdown", type=Path, metavar="OUT.md", help="PR comment (65,536 chars)")
    p.add_argument("--summary", type=Path, metavar="OUT.md", help="job summary (1 MiB)")
    p.add_argument("--json", type=Path, metavar="OUT.json", help="the comparison as JSON")
    p.add_argument("--junit", type=Path, metavar="OUT.xml", help="head run as JUnit XML")
    p.add_argument("--digest", type=Path, metavar="OUT.txt", help="head run's digest text")
    p.add_argument(
        "--history",
        type=Path,
        nargs="+",
        default=[],
        metavar="REPORT.json",
        help="earlier reports or digests, oldest first, for --svg-history (head is appended)",
    )
    p.add_argument("--svg-history", type=Path, metavar="OUT.svg", help="per-suite score chart")
    p.add_argument(
        "--svg-tools",
        type=Path,
        metavar="OUT.svg",
        help="accuracy vs number of tools (own_distractors) chart",
    )
    p.add_argument(
        "--changed-tools",
        type=Path,
        metavar="TOOLS.json",
        help="JSON list of changed tool definitions ({name, kind, summary, before, "
        "after}) to show next to regressions, as `bfcl-action impact --changed-tools-out` "
        "writes it",
    )
    p.add_argument("--full-report-url", help="where the full report is (default: this run)")
    p.add_argument("--title", default="BFCL function-calling check")
    t = p.add_argument_group("thresholds (override --config)")
    defaults = Thresholds()
    t.add_argument(
        "--max-drop",
        type=number,
        metavar="POINTS",
        help=f"allowed drop in points (default {defaults.max_drop:g})",
    )
    t.add_argument("--max-drop-for", action="append", default=[], metavar="SUITE=POINTS")
    t.add_argument(
        "--alpha",
        type=number,
        help="significance level of the sign test over question clusters "
        f"(default {defaults.alpha:g})",
    )
    t.add_argument("--min-score", type=number, metavar="PERCENT", help="minimum overall score")
    t.add_argument("--min-score-for", action="append", default=[], metavar="SUITE=PERCENT")
    t.add_argument("--informational", action="store_true", help="report, never fail")
    p.set_defaults(func=run)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=str(path)) from None


def _pairs(items: list[str], flag: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            out[name.strip()] = number(value.strip())
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise ConfigError(f"expected SUITE=NUMBER, found {item!r}", field=flag)
    return out


def threshold_overrides(args: argparse.Namespace) -> ThresholdOverrides:
    """The flags' thresholds; a flag not given keeps the config's (or the default) value."""
    categories: dict[str, dict[str, float]] = {}
    for flag, field, items in (
        ("--max-drop-for", "max_drop", args.max_drop_for),
        ("--min-score-for", "min_score", args.min_score_for),
    ):
        for key, value in _pairs(items, flag).items():
            categories.setdefault(key, {})[field] = value
    try:
        return ThresholdOverrides.model_validate(
            {
                "max_drop": args.max_drop,
                "alpha": args.alpha,
                "min_score": args.min_score,
                "categories": categories,
                "informational": args.informational,
            }
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfigError(first["msg"], field=".".join(str(p) for p in first["loc"])) from None


def thresholds_from_args(args: argparse.Namespace) -> Thresholds:
    """Defaults < `--config`'s `thresholds:` < flags (`bfcl_action.settings.resolve`)."""
    config = load_config(args.config) if args.config else None
    try:
        return resolve_thresholds(config, threshold_overrides(args))
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfigError(first["msg"], field=".".join(str(p) for p in first["loc"])) from None


def _changed_tools(path: Path | None) -> list[ToolChange]:
    if path is None:
        return []
    try:
        return TypeAdapter(list[ToolChange]).validate_json(_read(path))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(
            f"{first['msg']} (write this file with `bfcl-action impact --changed-tools-out`)",
            file=str(path),
            field=where or None,
        ) from None


def _default_run_url() -> str | None:
    server, repo, run_id = (
        os.environ.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")
    )
    return f"{server}/{repo}/actions/runs/{run_id}" if server and repo and run_id else None


def _uncovered_tools(config: Path | None, head: RunReport | Any) -> list[str]:
    """Tools of `--config` that no own case of the head run expects (none without a config,
    or when the tools cannot be read: the comment is still written)."""
    if config is None or not isinstance(head, RunReport):
        return []
    from bfcl_action.core.errors import BfclActionError
    from bfcl_action.report.coverage import tools_without_cases
    from bfcl_action.settings.config import load_config
    from bfcl_action.tools.configured import load_configured

    try:
        cfg = load_config(config)
        tools = load_configured(
            cfg.tools, base_dir=config.resolve().parent, exclude=cfg.tools_exclude
        )
    except BfclActionError:
        return []
    return tools_without_cases([f.name for f in tools.functions], head)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _print_summary(comparison: Comparison) -> None:
    print(escape.log_line(f"bfcl-action compare: {comparison.headline}", 2000))
    for d in comparison.differences:
        print(escape.log_line(f"  differs: {d.field}: base {d.base} / head {d.head}"))
    for s in comparison.suites:
        if s.moved or s.reasons:
            print(escape.log_line(f"  {s.suite}: {s.verdict.value}: {'; '.join(s.reasons)}"))


def run(args: argparse.Namespace) -> int:
    thresholds = thresholds_from_args(args)
    head = load_report(args.head)
    base = load_baseline(args.base) if args.base else None
    comparison = compare_runs(
        base, head, thresholds, changed_tools=_changed_tools(args.changed_tools)
    )
    url = args.full_report_url or _default_run_url()
    if args.markdown:
        uncovered = _uncovered_tools(args.config, head)
        text = render_comment(
            comparison, title=args.title, full_report_url=url, uncovered_tools=uncovered
        )
        _write(args.markdown, text)
    if args.summary:
        _write(args.summary, render_summary(comparison, title=args.title, full_report_url=url))
    if args.json:
        _write(args.json, render_json(comparison))
    if args.junit:
        _write(args.junit, render_junit(head))
    if args.digest:
        _write(args.digest, make_digest(head) + "\n")
    if args.svg_history:
        history: list[RunReport | RunDigest] = [load_baseline(p) for p in args.history]
        history.append(head)
        _write(args.svg_history, render_history_svg(history))
    if args.svg_tools:
        _write(args.svg_tools, render_tools_svg(head))
    _print_summary(comparison)
    return comparison.exit_code

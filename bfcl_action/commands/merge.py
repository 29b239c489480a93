"""`bfcl-action merge A.json B.json ... --output run.json`: join the shards of one run."""

from __future__ import annotations

import argparse
from pathlib import Path

from bfcl_action.core.errors import InputError
from bfcl_action.results.run_reports import load_report, merge_reports, save_report


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "merge",
        help="join shard reports of one run into one report",
        description=__doc__,
    )
    p.add_argument("reports", nargs="+", type=Path, metavar="REPORT")
    p.add_argument("--output", type=Path, required=True)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    if len(args.reports) < 1:
        raise InputError("give at least one report")
    merged = merge_reports([(str(p), load_report(p)) for p in args.reports])
    save_report(merged, args.output)
    print(f"merged {len(args.reports)} reports, {len(merged.results)} cases -> {args.output}")
    return 0

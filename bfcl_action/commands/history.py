"""`bfcl-action history`: the trend of a scheduled-run history file, as a table or SVG chart.

Reads the JSON Lines history the action keeps (docs/scheduled.md), e.g. after downloading the
`bfcl-history` artifact, and prints the newest runs; `--svg` also draws the trend chart.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bfcl_action.compare.history import read_history, trend_table, write_atomic
from bfcl_action.core.errors import InputError
from bfcl_action.report.charts import history_chart
from bfcl_action.safety.numbers import integer


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "history",
        help="show the trend of a scheduled-run history file (table or SVG)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", type=Path, help="history JSON Lines file (history/<check>.jsonl)")
    p.add_argument("--last", type=integer, default=12, metavar="N", help="runs in the table (12)")
    p.add_argument("--svg", type=Path, metavar="OUT", help="also write the trend chart")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    if not args.file.is_file():
        raise InputError("no such history file", file=str(args.file))
    records, skipped = read_history(args.file)
    for note in skipped:
        print(note)
    print(trend_table(records, last=args.last), end="")
    if args.svg is not None:
        title = f"{records[-1].check_name}: scheduled runs" if records else "scheduled runs"
        write_atomic(args.svg, history_chart(records, title=title))
        print(f"wrote {args.svg}")
    return 0

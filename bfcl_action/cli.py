"""`bfcl-action` command line: one subcommand per module in `bfcl_action.commands`.

Each command module exposes `register(subparsers)` that adds its parser and sets
`func=<callable(args) -> int>`. Adding a command touches one line here.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from bfcl_action import __version__
from bfcl_action.errors import BfclActionError

COMMANDS: list[str] = [
    "score",
    "check",
    "compare",
    "init",
    "impact",
    "run",
    "merge",
    "github",
    "validate",
    "history",
    "generate",
    "categories",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bfcl-action",
        description="Function-calling evaluation (BFCL-compatible) as a CI check.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"bfcl_action.commands.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except BfclActionError as exc:
        print(f"bfcl-action: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bfcl-action: interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())

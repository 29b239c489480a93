"""`bfcl-action` command line: one subcommand per module in `bfcl_action.commands`.

Each command module exposes `register(subparsers)` that adds its parser and sets
`func=<callable(args) -> int>`. Adding a command touches one line here.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from bfcl_action import __version__, credentials
from bfcl_action.errors import BfclActionError
from bfcl_action.escape import log_line
from bfcl_action.logstream import std_streams

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


def entry() -> int:
    """The console script: protect the secrets first (`credentials.protect_process`)."""
    credentials.protect_process()
    return main()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command with every printed line redacted and defused (`logstream`)."""
    with std_streams():
        parser = build_parser()
        args = parser.parse_args(argv)
        try:
            code: int = args.func(args)
        except BfclActionError as exc:
            print(f"bfcl-action: error: {log_line(exc)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("bfcl-action: interrupted", file=sys.stderr)
            return 130
        return code


if __name__ == "__main__":
    sys.exit(entry())

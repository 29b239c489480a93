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
from bfcl_action.core.errors import BfclActionError
from bfcl_action.safety import credentials
from bfcl_action.safety.escape import log_line
from bfcl_action.safety.logstream import std_streams

COMMANDS: dict[str, str] = {
    "score": "score BFCL result files (as the official tool writes them)",
    "check": "check model outputs given inline with their cases (JSONL in, JSONL out)",
    "compare": "compare a run report with its baseline (report or digest) and render reports",
    "compare-models": "which model is best on your cases: paired tests between models' run reports",
    "init": "write a starter .bfcl.yml and GitHub workflow for the tools found here",
    "impact": "list the cases whose model request changed since a git ref",
    "run": "ask a model every selected case and write a run report",
    "merge": "join shard reports of one run into one report",
    "github": "run as the GitHub Action (reads GITHUB_* and INPUT_* variables)",
    "validate": "check .bfcl.yml, tool files and own cases without calling a model",
    "history": "show the trend of a scheduled-run history file (table or SVG)",
    "categories": "list every valid category and group name",
    "generate": "draft own test cases for your tools with a model, verified by our checker",
    "contribute": "turn own cases into a Live contribution file (scrubbed, previewed, local)",
    "serve-replay": "a trial model: recorded or scripted answers as an OpenAI-compatible endpoint",
}
"""Every subcommand with its one-line help (the same text its module registers; a hyphen in
the name is an underscore in the module's, `module_of`).

A command's module is imported only when that command runs, so `--version`, `--help` and a
light command such as `check` never import the model client, PyGithub or the templates."""


def module_of(command: str) -> str:
    """The module that implements `command` (`compare-models` -> `commands.compare_models`)."""
    return f"bfcl_action.commands.{command.replace('-', '_')}"


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command-line parser. With `only`, just that command's module is imported and the
    others are listed by name and help (enough for `--help`, `--version` and dispatch)."""
    parser = argparse.ArgumentParser(
        prog="bfcl-action",
        description="Function-calling evaluation (BFCL-compatible) as a CI check.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, summary in COMMANDS.items():
        if only is None or name == only:
            importlib.import_module(module_of(name)).register(sub)
        else:
            sub.add_parser(name, help=summary)
    return parser


def command_of(argv: Sequence[str]) -> str:
    """The subcommand `argv` names ('' when none: `--version`, `--help`, a typo)."""
    for token in argv:
        if not token.startswith("-"):
            return token if token in COMMANDS else ""
    return ""


def entry() -> int:
    """The console script: protect the secrets first (`credentials.protect_process`)."""
    credentials.protect_process()
    return main()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command with every printed line redacted and defused (`logstream`)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    with std_streams():
        parser = build_parser(only=command_of(arguments))
        args = parser.parse_args(arguments)
        try:
            code: int = args.func(args)
        except BfclActionError as exc:
            # one problem a line (editors and problem matchers read file:line:col per line),
            # each line defused on its own
            first, *rest = str(exc).split("\n")
            print(f"bfcl-action: error: {log_line(first)}", file=sys.stderr)
            for line in rest:
                print(log_line(line), file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("bfcl-action: interrupted", file=sys.stderr)
            return 130
        return code


if __name__ == "__main__":
    sys.exit(entry())

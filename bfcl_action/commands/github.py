"""`bfcl-action github`: the GitHub Action's entrypoint.

Reads the event and the action inputs (`INPUT_*` variables that action.yml sets through
`env:`), runs or loads the evaluation, and reports it on GitHub: sticky PR comment, check run
with the run digest, statuses, job summary and step outputs. See docs/action.md.
"""

from __future__ import annotations

import argparse
from typing import Any

from bfcl_action.github.activities import main as run_activity
from bfcl_action.github.context import ActionContext


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "github",
        help="run as the GitHub Action (reads GITHUB_* and INPUT_* variables)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    return run_activity(ActionContext.from_env())

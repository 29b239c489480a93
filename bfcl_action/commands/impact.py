"""`bfcl-action impact`: which cases present a tool whose definition changed.

Compares the tools at a git ref (or in a directory) with the working tree's, then lists the
cases that offer a changed tool. The runner uses the same functions (`bfcl_action.impact`)
to run only those cases on a PR and reuse the baseline's verdicts for the rest.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bfcl_action.config import BfclConfig, find_config, load_config
from bfcl_action.errors import ConfigError
from bfcl_action.impact import (
    describe_tool_changes,
    impacted_cases,
    tool_changes,
    tools_at_ref,
)
from bfcl_action.suites import build_cases
from bfcl_action.tools.load import ToolSet, load_tools


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "impact",
        help="list cases that present a tool changed since a git ref",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", type=Path, help="path to .bfcl.yml (default: search upward)")
    base = parser.add_mutually_exclusive_group(required=True)
    base.add_argument("--base-ref", help="git ref of the base tools (e.g. origin/main)")
    base.add_argument(
        "--base-tools", type=Path, help="directory with the base tool files, laid out like the repo"
    )
    parser.add_argument(
        "--head-tools",
        type=Path,
        help="directory with the head tool files (default: the config's directory)",
    )
    parser.add_argument(
        "--own-only",
        action="store_true",
        help="skip derived suites (they need the irrelevance and function pools)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument(
        "--changed-tools-out",
        type=Path,
        metavar="TOOLS.json",
        help="also write the changed tools for `compare --changed-tools`",
    )
    parser.set_defaults(func=run)


def _config(path: Path | None) -> tuple[BfclConfig, Path]:
    found = path or find_config(Path.cwd())
    if found is None:
        raise ConfigError("no .bfcl.yml found here or above; run `bfcl-action init`")
    return load_config(found), found.parent


def _tools_in(directory: Path, config: BfclConfig) -> ToolSet:
    return load_tools(
        config.tools, base_dir=directory, exclude=config.tools_exclude, limits=config.tool_limits
    )


def run(args: argparse.Namespace) -> int:
    config, config_dir = _config(args.config)
    head = _tools_in(args.head_tools or config_dir, config)
    if args.base_ref:
        base = tools_at_ref(
            config_dir,
            args.base_ref,
            config.tools,
            config_dir=config_dir,
            exclude=config.tools_exclude,
            limits=config.tool_limits,
        )
        base_name = args.base_ref
    else:
        base = _tools_in(args.base_tools, config)
        base_name = str(args.base_tools)
    changes = tool_changes(base.functions, head.functions)
    cases = build_cases(
        config, base_dir=config_dir, derived=not args.own_only, external=False, tools=head
    )
    hit = impacted_cases(cases, changes)
    if args.changed_tools_out:
        records = [c.model_dump() for c in describe_tool_changes(base.functions, head.functions)]
        args.changed_tools_out.write_text(json.dumps(records, indent=2) + "\n", encoding="utf-8")
    if args.json:
        payload = {
            "base": base_name,
            "changes": {
                "added": changes.added,
                "removed": changes.removed,
                "changed": changes.changed,
            },
            "total_cases": len(cases),
            "impacted": [c.id for c in hit],
        }
        print(json.dumps(payload, indent=2))
        return 0
    if not changes:
        print(f"No tool definition changed since {base_name}; no case is impacted.")
        return 0
    print(f"Tools changed since {base_name}:")
    for label, names in (
        ("changed", changes.changed),
        ("added", changes.added),
        ("removed", changes.removed),
    ):
        for name in names:
            print(f"  {label:8} {name}")
    print(f"Impacted cases: {len(hit)} of {len(cases)}")
    by_suite: dict[str, list[str]] = {}
    for case in hit:
        by_suite.setdefault(case.label(), []).append(case.id)
    for suite, ids in sorted(by_suite.items()):
        print(f"  {suite} ({len(ids)}): {', '.join(ids)}")
    return 0

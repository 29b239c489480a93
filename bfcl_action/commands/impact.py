"""`bfcl-action impact`: which cases a run would ask the model again, and which tools changed.

Builds the cases at a git ref (from that ref's own config, tools, cases and pools) or with
the tools of a directory, and the working tree's cases, then lists the head cases whose model
request (messages, offered tools, settings) the base run did not make: exactly the cases a
run with the base's answers in the response cache asks the model for.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from bfcl_action.cases.suites import DatasetSource, build_cases
from bfcl_action.compare.git_files import tools_at_ref, tree_at_ref
from bfcl_action.compare.impact import (
    describe_tool_changes,
    options_for,
    request_delta,
    tool_changes,
)
from bfcl_action.core.categories import natural_key
from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import TestCase
from bfcl_action.settings.config import BfclConfig, find_config, load_config
from bfcl_action.settings.resolve import DEFAULTS
from bfcl_action.tools.configured import load_configured
from bfcl_action.tools.load import ToolSet


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "impact",
        help="list the cases whose model request changed since a git ref",
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
        help="own cases only: skip derived suites (they need the pools) and official/Live sets",
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
    return load_configured(
        config.tools, base_dir=directory, exclude=config.tools_exclude, limits=config.tool_limits
    )


def _base_cases(
    args: argparse.Namespace, config: BfclConfig, source: DatasetSource, tmp: Path
) -> tuple[list[TestCase], BfclConfig | None, ToolSet]:
    """The base side: its cases (built from the base's own config, tools, cases and pools
    when the base is a git ref) and its tools. `source` is the head's: the two sides parse
    each pool once between them."""
    config_dir = source.base_dir
    if not args.base_ref:
        base_tools = _tools_in(args.base_tools, config)
        cases = _build(config, source, base_tools, args.own_only)
        return cases, config, base_tools
    base_dir = tree_at_ref(config_dir, args.base_ref, config_dir, tmp)
    if config.tool_globs == config.tools:
        base_tools = tools_at_ref(
            config_dir,
            args.base_ref,
            config.tool_globs,
            config_dir=config_dir,
            exclude=config.tools_exclude,
            limits=config.tool_limits,
        )
    else:  # a tool server: the base's server, started from the base's tree
        base_tools = _tools_in(base_dir, config)
    found = find_config(base_dir)
    if found is None or not found.is_relative_to(tmp):
        return [], None, base_tools
    base_config = load_config(found, display=f"{args.base_ref}:{found.name}")
    if not base_config.tools:
        return [], base_config, base_tools
    cases = _build(base_config, source.at(base_dir), None, args.own_only)
    return cases, base_config, base_tools


def _build(
    config: BfclConfig, source: DatasetSource, tools: ToolSet | None, own_only: bool
) -> list[TestCase]:
    return build_cases(
        config,
        base_dir=source.base_dir,
        source=source,
        derived=not own_only,
        external=not own_only,
        tools=tools,
    )


def _predict(
    config: BfclConfig,
    base_config: BfclConfig | None,
    cases: list[TestCase],
    base_cases: list[TestCase],
) -> tuple[list[TestCase], set[str], dict[str, int]]:
    """Impacted cases and the distinct requests a cached run asks; with a `models:` matrix,
    for every entry (each against the base's entry of the same label, else the base's
    `model:`), the requests summed and given per label."""
    base = base_config or config
    if not config.models:
        hit, new_keys = request_delta(
            cases,
            options_for(config.model),
            base_cases,
            options_for(base.model),
            repeat=config.model.samples or DEFAULTS.repeat,
        )
        return hit, new_keys, {}
    base_entries = {e.key: e for e in base.models}
    impacted: dict[str, TestCase] = {}
    keys: set[str] = set()
    per_model: dict[str, int] = {}
    for entry in config.models:
        section = entry.over(config.model)
        before = (
            base_entries[entry.key].over(base.model) if entry.key in base_entries else base.model
        )
        hit, new_keys = request_delta(
            cases,
            options_for(section),
            base_cases,
            options_for(before),
            repeat=section.samples or DEFAULTS.repeat,
        )
        impacted.update((c.id, c) for c in hit)
        keys |= new_keys
        per_model[entry.key] = len(new_keys)
    return [c for c in cases if c.id in impacted], keys, per_model


def run(args: argparse.Namespace) -> int:
    config, config_dir = _config(args.config)
    head = _tools_in(args.head_tools or config_dir, config)
    source = DatasetSource(config_dir)
    with tempfile.TemporaryDirectory(prefix="bfcl-impact-") as tmp:
        base_cases, base_config, base = _base_cases(args, config, source, Path(tmp))
    base_name = args.base_ref or str(args.base_tools)
    changes = tool_changes(base.functions, head.functions)
    cases = _build(config, source, head, args.own_only)
    hit, new_keys, per_model = _predict(config, base_config, cases, base_cases)
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
            "requests": len(new_keys),
            "impacted": [c.id for c in hit],
        }
        if per_model:
            payload["models"] = per_model
        print(json.dumps(payload, indent=2))
        return 0
    if not changes and not hit:
        print(f"No tool definition changed since {base_name}; no case is impacted.")
        return 0
    if changes:
        print(f"Tools changed since {base_name}:")
    for label, names in (
        ("changed", changes.changed),
        ("added", changes.added),
        ("removed", changes.removed),
    ):
        for name in names:
            print(f"  {label:8} {name}")
    each = ", ".join(f"{label} {n}" for label, n in per_model.items())
    print(
        f"Impacted cases (their model request changed): {len(hit)} of {len(cases)}"
        f" ({len(new_keys)} distinct requests to ask{': ' + each if each else ''})"
    )
    by_suite: dict[str, list[str]] = {}
    for case in hit:
        by_suite.setdefault(case.label(), []).append(case.id)
    for suite, ids in sorted(by_suite.items(), key=lambda kv: natural_key(kv[0])):
        title = f"  {suite} ({len(ids)}):"
        wrapped = id_lines(ids)
        if len(wrapped) == 1 and len(title) + 1 + len(wrapped[0]) <= 100:
            print(f"{title} {wrapped[0]}")
            continue
        print(title)
        for line in wrapped:
            print(f"    {line}")
    if any(len(ids) > SHOWN_IDS for ids in by_suite.values()):
        print("  (`bfcl-action impact --json` lists every impacted id)")
    return 0


SHOWN_IDS = 12
"""Ids listed per suite in the text output: enough to recognise the cases, few enough that a
change offering one tool to every case (hundreds of ids) stays a screenful."""


def id_lines(ids: list[str], width: int = 92) -> list[str]:
    """The first `SHOWN_IDS` ids and how many more there are, wrapped to `width` columns."""
    shown = ids[:SHOWN_IDS]
    lines: list[str] = []
    line = ""
    for case_id in shown:
        if line and len(line) + 2 + len(case_id) > width:
            lines.append(line + ",")
            line = case_id
        else:
            line = f"{line}, {case_id}" if line else case_id
    if len(ids) > len(shown):
        more = f"and {len(ids) - len(shown)} more"
        if len(line) + 1 + len(more) > width:
            lines.append(line)
            line = more
        else:
            line = f"{line} {more}"
    lines.append(line)
    return lines

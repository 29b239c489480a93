"""`bfcl-action validate`: check `.bfcl.yml`, the tool files and the own cases, no model call.

Every problem of every file is listed with file:line:column (exit 2); warnings are printed
and do not fail. `--annotations` also prints them as GitHub workflow commands, so they show
on the pull request's files. Meant as a fast first CI step and for local editing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bfcl_action.cases.suites import build_cases, load_multi_turn, load_own
from bfcl_action.commands.impact import _config
from bfcl_action.core.categories import natural_key
from bfcl_action.safety.logstream import emit_command
from bfcl_action.settings.config import BfclConfig, MatrixModel
from bfcl_action.tools.issues import Severity, ToolIssue, ToolValidationError
from bfcl_action.tools.load import ToolSet


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "validate",
        help="check .bfcl.yml, tool files and own cases without calling a model",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", type=Path, help="path to .bfcl.yml (default: search upward)")
    parser.add_argument(
        "--derived",
        action="store_true",
        help="also build the derived suites (loads the irrelevance and function pools)",
    )
    parser.add_argument(
        "--annotations",
        action="store_true",
        help="also print GitHub workflow-command annotations (::error file=...::)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.set_defaults(func=run)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(issue: ToolIssue, *, base: Path | None = None) -> str:
    """One issue as a workflow command; every user-controlled part is escaped, so a crafted
    tool name or description cannot inject another command."""
    kind = "error" if issue.severity is Severity.ERROR else "warning"
    file = (base / issue.file).as_posix() if base is not None else issue.file
    props = [f"file={_escape_property(file)}"]
    if issue.line is not None:
        props.append(f"line={issue.line}")
        if issue.column is not None:
            props.append(f"col={issue.column}")
    props.append(f"title={_escape_property('bfcl-action')}")
    message = issue.render().split(": ", 1)[-1]
    return f"::{kind} {','.join(props)}::{_escape_data(message)}"


def run(args: argparse.Namespace) -> int:
    config, config_dir = _config(args.config)
    rel = _relative(config_dir)
    # with --json, stdout holds the JSON document alone: warnings and annotations go to
    # stderr (the runner reads workflow commands there too)
    notes = sys.stderr if args.json else sys.stdout
    try:
        if config.tools or not config.multi_turn:
            tools, own = load_own(config, base_dir=config_dir)
        else:  # a multi-turn-only repository: its function docs live in the case files
            tools, own = ToolSet(), []
    except ToolValidationError as exc:
        if args.annotations:
            for issue in exc.issues:
                emit_command(annotation(issue, base=rel), notes)
        raise
    if args.derived:
        cases = build_cases(config, base_dir=config_dir, external=False)
    else:
        cases = own + load_multi_turn(config, config_dir)
    for warning in tools.notices:
        print(warning.render(), file=notes)
        if args.annotations:
            emit_command(annotation(warning, base=rel), notes)
    formats = Counter(str(f) for f in tools.formats.values())
    suites = Counter(c.label() for c in cases)
    summary: dict[str, Any] = {
        "config": str(config.source_file),
        "tools": len(tools.functions),
        "formats": dict(sorted(formats.items())),
        "files": tools.files,
        "cases": len(cases),
        "suites": dict(sorted(suites.items(), key=lambda item: natural_key(item[0]))),
        "warnings": len(tools.warnings),
    }
    defining = {f.source.file for f in tools.functions if f.source is not None}
    defining |= {i.file for i in tools.left_out}
    empty = [f for f in tools.files if f not in defining]
    summary["files_without_tools"] = empty
    summary["models"] = [m.key for m in config.models]
    if args.json:
        print(json.dumps(summary, indent=2))
        return 2 if config.tools and not tools.functions else 0
    fmt = ", ".join(f"{k} {v}" for k, v in summary["formats"].items())
    files = len(tools.files)
    where = [f"in {files} file{'s' if files != 1 else ''}"] if files or not tools.servers else []
    where += [f"from {source}" for source in tools.servers]
    n = len(tools.functions)
    print(f"{n} tool{'s' if n != 1 else ''} ({fmt}) {' and '.join(where)}")
    for file in empty:
        print(f"{file}: warning: defines no tool (expected a list of tool definitions)")
    if cases:
        print(f"{len(cases)} cases: " + ", ".join(f"{k} {v}" for k, v in summary["suites"].items()))
    else:
        print(
            "0 cases: write some (docs/own-tools.md) and list their files under `cases:`, "
            "or draft verified ones: bfcl-action generate --per-tool 3"
        )
    if config.models:
        print(
            f"{len(config.models)} models: "
            + ", ".join(_model_line(config, m) for m in config.models)
        )
    if config.tools and not tools.functions:
        print(
            f"{config.source_file}: tools: error: the globs match {len(tools.files)} file(s), "
            "but they define no tool: nothing of yours would be evaluated"
        )
        return 2
    return 2 if tools.left_out else 0


def _model_line(config: BfclConfig, entry: MatrixModel) -> str:
    """`label (name, mode, endpoint host)`: what a matrix entry resolves to."""
    section = entry.over(config.model)
    name = section.name if section.name != entry.key else ""
    parts = [name or "", str(section.mode or "fc")]
    if section.base_url:
        parts.append(urlsplit(section.base_url).hostname or "")
    if entry.informational:
        parts.append("informational")
    return f"{entry.key} ({', '.join(p for p in parts if p)})"


def _relative(config_dir: Path) -> Path | None:
    """The config directory relative to the working directory (annotations need paths from
    the repository root, where the workflow runs)."""
    try:
        rel = config_dir.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return None
    return None if rel == Path(".") else rel

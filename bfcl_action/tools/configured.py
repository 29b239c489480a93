"""The tool set a config's `tools:` names: files matched by globs, plus tool servers.

One entry point (`load_configured`) for every front-end, so a server's tools go through the
same parser, checks, normalisation and duplicate-name rule as a file's: the server's
`tools/list` result is read as the text of an MCP tool file. Problems found in a server's
tools are reported at the config entry that names the server; a tool's location (what an
annotation points at) is the line of the server's source that holds its description when the
text is found there, else that config entry.

The MCP client (and the SDK under it) is imported only when an entry names a server.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bfcl_action.core.errors import InputError
from bfcl_action.core.records import FunctionDoc, SourceLocation
from bfcl_action.safety.budget import DEFAULT_BUDGET, ParseBudget, repository_root
from bfcl_action.safety.escape import log_line
from bfcl_action.tools.formats import ToolFormat
from bfcl_action.tools.issues import ToolIssue, ToolValidationError
from bfcl_action.tools.load import ToolSet, display_name, read_tool_files, tools_from_sources
from bfcl_action.tools.servers import (
    PythonEntry,
    PythonModule,
    SourceEntry,
    split_entries,
)
from bfcl_action.tools.validate import ToolLimits

SOURCE_SUFFIXES = (".py", ".ts", ".js", ".mjs", ".go", ".rs", ".java", ".kt", ".rb", ".cs")
MAX_SOURCE_FILES = 200
MAX_SOURCE_BYTES = 1_000_000
SERVER_DOC = "<tools[{index}]>"
"""Display name of a server's listing while it is checked (replaced in every message)."""


def load_configured(
    entries: Sequence[Any],
    *,
    base_dir: Path,
    exclude: Sequence[str] = (),
    limits: ToolLimits | None = None,
    origins: Sequence[SourceLocation] = (),
    allow_hosts: Sequence[str] = (),
    budget: ParseBudget = DEFAULT_BUDGET,
) -> ToolSet:
    """Every tool of `entries` (globs, MCP servers, Python modules), validated together.

    `origins[i]` is where `entries[i]` was written. Raises `ToolValidationError` listing every
    error (a server that fails to start is one of them, at its entry)."""
    globs, others = split_entries(list(entries))
    glob_origins = [o for e, o in zip(entries, origins, strict=False) if isinstance(e, str)]
    sources, early = read_tool_files(
        globs, base_dir=base_dir, exclude=exclude, origins=glob_origins, budget=budget
    )
    limits = limits or ToolLimits()
    if not others:
        return tools_from_sources(sources, limits, early, budget)
    listed: dict[str, tuple[int, SourceEntry]] = {}
    for index, entry in others:
        origin = _origin(origins, index)
        try:
            text = _listing(entry, base_dir, allow_hosts)
        except InputError as exc:
            early.append(_at(origin, f"tools[{index}]", f"{entry.label()}: {exc.message}"))
            continue
        name = SERVER_DOC.format(index=index)
        listed[name] = (index, entry)
        sources.append((name, text))
    try:
        result = tools_from_sources(sources, limits, early, budget)
    except ToolValidationError as exc:
        raise ToolValidationError([_moved(i, listed, origins) for i in exc.issues]) from None
    result.files = [f for f in result.files if f not in listed]
    result.servers = [entry.label() for _, entry in listed.values()]
    result.left_out = [_moved(i, listed, origins) for i in result.left_out]
    result.warnings = [_moved(i, listed, origins) for i in result.warnings]
    for fn in result.functions:
        where = listed.get(fn.source.file) if fn.source is not None else None
        if where is not None and isinstance(where[1], PythonEntry):
            result.formats[fn.name] = ToolFormat.PYTHON
    result.functions = [_located(f, listed, origins, base_dir) for f in result.functions]
    return result


def _listing(entry: SourceEntry, base_dir: Path, allow_hosts: Sequence[str]) -> str:
    """The tools of a server or module as the text of a tool file."""
    if isinstance(entry, PythonEntry):
        return json.dumps(python_tools(entry.python, base_dir), indent=1, ensure_ascii=False)
    from bfcl_action.tools import mcp_client

    tools = mcp_client.list_tools(entry.mcp, cwd=base_dir, allow_hosts=allow_hosts)
    return mcp_client.tools_document(tools)


def python_tools(module: PythonModule, base_dir: Path) -> list[dict[str, Any]]:
    """`{name, description, parameters}` of the module's names, built inside the sandbox
    worker (the module is the repository's code: imported there, never here)."""
    from bfcl_action.safety.sandbox import Sandbox, SandboxLimits

    limits = SandboxLimits(call_timeout_s=module.timeout_s, start_timeout_s=module.timeout_s)
    with Sandbox(limits=limits, paths=[base_dir]) as sandbox:
        answer = sandbox.invoke(
            "bfcl_action.tools.pyschema:schemas_of", [module.module, list(module.names)]
        )
    if not answer.get("ok"):
        raise InputError(f"the sandbox failed: {log_line(answer.get('error'), 300)}")
    if "raised" in answer:
        raise InputError(f"importing {module.module} failed: {log_line(answer['raised'], 300)}")
    value = answer.get("value")
    if not isinstance(value, list):
        raise InputError(f"no schemas from {module.module}")
    problems = [
        f"{v.get('name')}: {v['error']}" for v in value if isinstance(v, dict) and "error" in v
    ]
    if problems:
        raise InputError("; ".join(log_line(p, 200) for p in problems[:5]))
    return [v for v in value if isinstance(v, dict)]


def _origin(origins: Sequence[SourceLocation], index: int) -> SourceLocation:
    return origins[index] if index < len(origins) else SourceLocation(file=".bfcl.yml")


def _at(origin: SourceLocation, field: str, message: str) -> ToolIssue:
    return ToolIssue(
        file=origin.file, line=origin.line, column=origin.column, field=field, message=message
    )


def _moved(
    issue: ToolIssue, listed: dict[str, tuple[int, SourceEntry]], origins: Sequence[SourceLocation]
) -> ToolIssue:
    """An issue found in a server's listing, moved to the config entry naming the server."""
    if issue.file not in listed:
        return issue
    index, entry = listed[issue.file]
    origin = _origin(origins, index)
    field = f"{entry.label()}: {issue.field}" if issue.field else entry.label()
    return issue.model_copy(
        update={"file": origin.file, "line": origin.line, "column": origin.column, "field": field}
    )


def _located(
    fn: FunctionDoc,
    listed: dict[str, tuple[int, SourceEntry]],
    origins: Sequence[SourceLocation],
    base_dir: Path,
) -> FunctionDoc:
    if fn.source is None or fn.source.file not in listed:
        return fn
    index, entry = listed[fn.source.file]
    found = locate_text(fn.description, server_sources(entry, base_dir), base_dir)
    return fn.model_copy(update={"source": found or _origin(origins, index)})


def server_sources(entry: SourceEntry, base_dir: Path) -> list[Path]:
    """Files that may hold a source's tool descriptions: a Python module's file, the files a
    stdio server's command names (`server.py`, `-m app.server`), else the source files
    beside the config (bounded)."""
    if isinstance(entry, PythonEntry):
        stem = base_dir / entry.python.module.replace(".", "/")
        candidates = (stem.with_name(stem.name + ".py"), stem / "__init__.py")
        return [p for p in candidates if p.is_file()]
    command = entry.mcp.command or []
    named: list[Path] = []
    for i, arg in enumerate(command[1:], start=1):
        module = command[i - 1] == "-m"
        path = base_dir / (arg.replace(".", "/") + ".py" if module else arg)
        if path.is_file():
            named.append(path)
    if named:
        return named
    try:
        root = repository_root(base_dir)
        found = sorted(
            p
            for p in base_dir.rglob("*")
            if p.suffix in SOURCE_SUFFIXES
            and p.is_file()
            and not any(part.startswith(".") or part == "node_modules" for part in p.parts)
            and p.resolve().is_relative_to(root)
        )
    except OSError:
        return []
    return found[:MAX_SOURCE_FILES]


def locate_text(text: str, files: Sequence[Path], base_dir: Path) -> SourceLocation | None:
    """Where the first line of `text` is written in `files` (file relative to `base_dir`)."""
    needle = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if len(needle) < 8:
        return None
    for path in files:
        try:
            if path.stat().st_size > MAX_SOURCE_BYTES:
                continue
            content = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        at = content.find(needle)
        if at >= 0:
            line = content.count("\n", 0, at) + 1
            column = at - (content.rfind("\n", 0, at) + 1) + 1
            return SourceLocation(file=display_name(path, base_dir), line=line, column=column)
    return None

"""Load every tool of a repository: expand globs, parse, detect, validate, normalise.

Errors are collected across all files and raised once (`ToolValidationError`), so one run
shows everything that needs fixing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bfcl_action.core.errors import InputError
from bfcl_action.core.records import FunctionDoc, SourceLocation
from bfcl_action.safety.budget import DEFAULT_BUDGET, ParseBudget, read_text, repository_root
from bfcl_action.safety.globs import expand_globs
from bfcl_action.tools.formats import ToolFormat, find_tools
from bfcl_action.tools.issues import Severity, ToolIssue, ToolValidationError
from bfcl_action.tools.source import Document, parse_text
from bfcl_action.tools.validate import ToolLimits, check_tool, check_tool_set


@dataclass
class ToolSet:
    """The normalised tools of a repository, in file order, plus non-fatal warnings."""

    functions: list[FunctionDoc] = field(default_factory=list)
    formats: dict[str, ToolFormat] = field(default_factory=dict)
    """Tool name -> the format it was written in."""
    files: list[str] = field(default_factory=list)
    warnings: list[ToolIssue] = field(default_factory=list)
    servers: list[str] = field(default_factory=list)
    """Tool servers read (`mcp: python server.py`), beside the tool `files`."""
    left_out: list[ToolIssue] = field(default_factory=list)
    """Errors that leave one tool out (`ToolIssue.tool_only`: a provider's limit): the tool
    is not in `functions`, the others are."""

    @property
    def notices(self) -> list[ToolIssue]:
        """What to show without failing the load: left-out tools first, then warnings."""
        return [*self.left_out, *self.warnings]

    def by_name(self) -> dict[str, FunctionDoc]:
        return {f.name: f for f in self.functions}


def read_tools(
    doc: Document, limits: ToolLimits | None = None
) -> tuple[list[tuple[FunctionDoc, ToolFormat]], list[ToolIssue]]:
    """Every valid tool of one parsed document and every issue found in it."""
    tools, _, issues = _read(doc, limits)
    return tools, issues


def _read(
    doc: Document, limits: ToolLimits | None
) -> tuple[list[tuple[FunctionDoc, ToolFormat]], list[tuple[str, SourceLocation]], list[ToolIssue]]:
    raws, issues = find_tools(doc)
    out: list[tuple[FunctionDoc, ToolFormat]] = []
    named: list[tuple[str, SourceLocation]] = []
    for raw in raws:
        function, found = check_tool(doc, raw, limits)
        issues.extend(found)
        if function is not None:
            out.append((function, raw.format))
        name = raw.name if raw.name is not None else _value(doc.data, raw.name_path)
        if isinstance(name, str) and name:
            line, col = doc.where(raw.path) or (None, None)
            named.append((name, SourceLocation(file=doc.file, line=line, column=col)))
    return out, named, issues


def _value(data: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def parse_tools(text: str, file: str, limits: ToolLimits | None = None) -> ToolSet:
    """Tools from file content (used for files read from git); raises on any error."""
    return tools_from_sources([(file, text)], limits or ToolLimits())


def unmatched_issue(
    pattern: str,
    patterns: Sequence[str],
    origins: Sequence[SourceLocation],
    *,
    key: str,
    what: str,
) -> ToolIssue:
    """A glob that matched nothing, reported where it was written."""
    index = list(patterns).index(pattern)
    origin = origins[index] if index < len(origins) else SourceLocation(file=".bfcl.yml")
    return ToolIssue(
        file=origin.file,
        line=origin.line,
        column=origin.column,
        field=f"{key}[{index}]",
        message="pattern matched no files",
        expected=f"at least one {what}",
        found=repr(pattern),
    )


def display_name(path: Path, base_dir: Path) -> str:
    try:
        return path.resolve().relative_to(base_dir.resolve()).as_posix()
    except ValueError:
        return str(path)


def load_tools(
    patterns: Sequence[str],
    *,
    base_dir: Path,
    exclude: Sequence[str] = (),
    limits: ToolLimits | None = None,
    origins: Sequence[SourceLocation] = (),
    budget: ParseBudget = DEFAULT_BUDGET,
) -> ToolSet:
    """Load and validate the tools of every file matched by `patterns`.

    File names in messages are relative to `base_dir`; `origins[i]` is where `patterns[i]`
    was written (so a glob matching nothing is reported at its line in `.bfcl.yml`). Raises
    `ToolValidationError` listing every error of every file (parse errors included);
    warnings are returned on the set.
    """
    sources, early = read_tool_files(
        patterns, base_dir=base_dir, exclude=exclude, origins=origins, budget=budget
    )
    return tools_from_sources(sources, limits or ToolLimits(), early, budget)


def read_tool_files(
    patterns: Sequence[str],
    *,
    base_dir: Path,
    exclude: Sequence[str] = (),
    origins: Sequence[SourceLocation] = (),
    budget: ParseBudget = DEFAULT_BUDGET,
) -> tuple[list[tuple[str, str]], list[ToolIssue]]:
    """(display name, text) of every file the globs match, and the problems met on the way
    (a glob matching nothing, a file over budget); `ToolValidationError` for a bad glob."""
    if not patterns:
        return [], []
    root = repository_root(base_dir)
    try:
        files, unmatched = expand_globs(patterns, base_dir, exclude, root=root, budget=budget)
    except InputError as exc:
        issue = ToolIssue(file=exc.file or ".bfcl.yml", message=exc.message)
        raise ToolValidationError([issue]) from None
    sources: list[tuple[str, str]] = []
    early = [
        unmatched_issue(p, patterns, origins, key="tools", what="tool file") for p in unmatched
    ]
    for path in files:
        name = display_name(path, base_dir)
        try:
            sources.append((name, read_text(path, root=root, display=name, budget=budget)))
        except InputError as exc:
            early.append(ToolIssue(file=name, message=exc.message))
    return sources, early


def tools_from_sources(
    sources: list[tuple[str, str]],
    limits: ToolLimits,
    early: list[ToolIssue] | None = None,
    budget: ParseBudget = DEFAULT_BUDGET,
) -> ToolSet:
    """Tools from (display name, text) pairs; raises `ToolValidationError` on any error."""
    issues = list(early or [])
    named: list[tuple[str, SourceLocation]] = []
    result = ToolSet()
    for name, text in sources:
        result.files.append(name)
        try:
            doc = parse_text(text, name, budget)
        except InputError as exc:
            issues.append(
                ToolIssue(file=name, line=exc.line, column=exc.column, message=exc.message)
            )
            continue
        tools, names, found = _read(doc, limits)
        issues.extend(found)
        named.extend(names)
        for function, fmt in tools:
            result.functions.append(function)
            result.formats.setdefault(function.name, fmt)
    issues.extend(check_tool_set(named, len(named), limits))
    errors = [i for i in issues if i.severity is Severity.ERROR]
    if any(not i.tool_only for i in errors):
        raise ToolValidationError(errors)
    result.left_out = errors
    result.warnings = [i for i in issues if i.severity is Severity.WARNING]
    return result

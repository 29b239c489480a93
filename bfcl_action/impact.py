"""Which cases a change to the tool definitions can affect.

A PR that edits one tool's description need not re-run every case: only cases that *present*
a changed tool (offer it to the model) can change verdict. `tool_changes` compares two tool
sets, `impacted_cases` lists the cases that present a changed tool, and `split_by_impact` is
what the runner uses to run those and reuse the baseline's verdicts for the rest.

The base tool set is read from git (`tools_at_ref`, with GitPython, never touching the
working tree) or from a directory laid out like the repository.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from bfcl_action.errors import InputError
from bfcl_action.fingerprint import canonical_json
from bfcl_action.globs import matches_any
from bfcl_action.models import FunctionDoc, TestCase
from bfcl_action.tools.load import ToolSet, tools_from_sources
from bfcl_action.tools.validate import ToolLimits


@dataclass
class ToolChanges:
    """Tool names added, removed and changed (description or parameters) from base to head."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)

    @property
    def names(self) -> set[str]:
        return {*self.added, *self.removed, *self.changed}

    def __bool__(self) -> bool:
        return bool(self.names)


@dataclass
class ImpactSplit:
    """Cases to run now, and cases whose baseline verdicts can be reused."""

    run: list[TestCase]
    reuse: list[TestCase]


def tool_key(fn: FunctionDoc) -> str:
    """What a model sees of a tool; two tools with the same key are the same to a model."""
    return canonical_json(
        {"name": fn.name, "description": fn.description, "parameters": fn.parameters}
    )


def tool_changes(base: Sequence[FunctionDoc], head: Sequence[FunctionDoc]) -> ToolChanges:
    """Compare tool sets by name; a tool changed when its description or schema changed."""
    before = {f.name: f for f in base}
    after = {f.name: f for f in head}
    return ToolChanges(
        added=sorted(set(after) - set(before)),
        removed=sorted(set(before) - set(after)),
        changed=sorted(
            n for n in set(before) & set(after) if tool_key(before[n]) != tool_key(after[n])
        ),
    )


class ToolChange(BaseModel):
    """One tool definition a change added, removed or changed, as the reports show it."""

    name: str
    kind: Literal["added", "removed", "changed"] = "changed"
    summary: str = ""
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None


def _tool_dict(fn: FunctionDoc) -> dict[str, Any]:
    return fn.model_dump(mode="json", exclude_none=True)


def _what_changed(before: FunctionDoc, after: FunctionDoc) -> list[str]:
    parts = []
    if before.description != after.description:
        parts.append("description changed")
    old = before.parameters.get("properties") or {}
    new = after.parameters.get("properties") or {}
    parts += [f"parameter {n} added" for n in sorted(new.keys() - old.keys())]
    parts += [f"parameter {n} removed" for n in sorted(old.keys() - new.keys())]
    for name in sorted(old.keys() & new.keys()):
        if old[name] != new[name]:
            keys = sorted(
                k
                for k in old[name].keys() | new[name].keys()
                if old[name].get(k) != new[name].get(k)
            )
            parts.append(f"parameter {name}: {', '.join(keys)} changed")
    if set(before.parameters.get("required") or []) != set(after.parameters.get("required") or []):
        parts.append("required parameters changed")
    return parts or ["definition changed"]


def describe_tool_changes(
    base: Sequence[FunctionDoc], head: Sequence[FunctionDoc]
) -> list[ToolChange]:
    """What changed between two tool sets, by tool name (the tools `tool_changes` lists),
    for the comparison report to show next to the regressions they may explain."""
    before = {f.name: f for f in base}
    after = {f.name: f for f in head}
    changes = tool_changes(base, head)
    out: list[ToolChange] = []
    for name in sorted(changes.names):
        if name in changes.added:
            out.append(ToolChange(name=name, kind="added", after=_tool_dict(after[name])))
        elif name in changes.removed:
            out.append(ToolChange(name=name, kind="removed", before=_tool_dict(before[name])))
        else:
            out.append(
                ToolChange(
                    name=name,
                    summary="; ".join(_what_changed(before[name], after[name])),
                    before=_tool_dict(before[name]),
                    after=_tool_dict(after[name]),
                )
            )
    return out


def presents_changed_tool(case: TestCase, changes: ToolChanges) -> bool:
    """A case is impacted when it offers a changed or added tool, or expects a removed one."""
    names = changes.names
    if any(f.name in names for f in case.functions):
        return True
    return any(name in names for call in case.possible_answer for name in call)


def impacted_cases(cases: Sequence[TestCase], changes: ToolChanges) -> list[TestCase]:
    return [c for c in cases if presents_changed_tool(c, changes)]


def split_by_impact(cases: Sequence[TestCase], changes: ToolChanges) -> ImpactSplit:
    """Cases that present a changed tool (run them) and the rest (reuse baseline verdicts).

    Official and Live cases never present your tools, so they land in `reuse`; the runner
    decides whether it has a baseline verdict for each reused case (and runs it if not).
    """
    run: list[TestCase] = []
    reuse: list[TestCase] = []
    for case in cases:
        (run if presents_changed_tool(case, changes) else reuse).append(case)
    return ImpactSplit(run=run, reuse=reuse)


def tools_at_ref(
    repo_dir: Path,
    ref: str,
    patterns: Sequence[str],
    *,
    config_dir: Path | None = None,
    exclude: Sequence[str] = (),
    limits: ToolLimits | None = None,
) -> ToolSet:
    """The tool set as committed at `ref`, using the working tree's globs.

    Globs are relative to `config_dir` (default: the repository root), as in `.bfcl.yml`.
    A bad ref is an `InputError`; tool files that do not validate at the ref raise the usual
    `ToolValidationError` (names prefixed with `REF:`).
    """
    import git

    try:
        repo = git.Repo(repo_dir, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise InputError(f"not a git repository: {repo_dir}") from None
    try:
        commit = repo.commit(ref)
    except (git.BadName, ValueError):
        raise InputError(f"unknown git ref {ref!r}", field="--base-ref") from None
    root = Path(repo.working_tree_dir or repo_dir).resolve()
    prefix = ""
    if config_dir is not None:
        rel = config_dir.resolve().relative_to(root).as_posix()
        prefix = "" if rel == "." else rel + "/"
    sources: list[tuple[str, str]] = []
    items: list[Any] = list(commit.tree.traverse())
    for blob in items:
        if getattr(blob, "type", "") != "blob":
            continue
        path = str(blob.path)
        if not path.startswith(prefix):
            continue
        rel_path = path[len(prefix) :]
        if matches_any(rel_path, patterns) and not matches_any(rel_path, exclude):
            data = blob.data_stream.read().decode("utf-8", errors="replace")
            sources.append((f"{ref}:{rel_path}", data))
    sources.sort()
    return tools_from_sources(sources, limits or ToolLimits())

"""Which cases a change can affect: exactly those whose model request changed.

A PR that edits one tool's description need not re-ask every case: a case whose request
(messages, offered tools, settings) is byte-for-byte what the base run asked gets the base
run's answer from the response cache. `changed_requests` lists the others, computed with the
backend's own request builder, so what `impact` predicts is what a cached run asks.
`tool_changes` and `describe_tool_changes` say which tool definitions changed, for people.

The base tool set is read from git (`tools_at_ref`, with GitPython, never touching the
working tree) or from a directory laid out like the repository.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from bfcl_action.config import ModelSettings
from bfcl_action.errors import InputError
from bfcl_action.fingerprint import canonical_json, sha256_hex
from bfcl_action.globs import matches_any
from bfcl_action.models import FunctionDoc, Mode, TestCase
from bfcl_action.settings import backend_options, settings_of_section
from bfcl_action.tools.load import ToolSet, tools_from_sources
from bfcl_action.tools.validate import ToolLimits

if TYPE_CHECKING:  # the runner imports the comparison, which imports this module
    from bfcl_action.runner.backends import Backend, BackendOptions


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


def key_backend(options: BackendOptions) -> Backend:
    """The OpenAI backend for `options.mode`, used only to compute request keys (pure).

    A `replay:` model is keyed as the model it replays would be: impact is about what would be
    asked, and both sides of a comparison use the same backend.
    """
    from bfcl_action.runner.backends import BACKENDS

    name = "openai-fc" if options.mode is Mode.FC else "openai-prompt"
    return BACKENDS[name](replace(options, api_key=options.api_key or "unset"))


def _conversation_key(case: TestCase, options: BackendOptions, sample: int) -> str:
    """A multi-turn case has no single request; each step is cached on its own and every
    step follows from the case, the settings and the answers before it. So its steps are all
    reused exactly when its content (id and source location aside) and the settings are."""
    content = case.model_dump(
        mode="json", exclude={"id", "source", "suite", "dataset", "environment_paths"}
    )
    return sha256_hex(
        canonical_json(
            {"case": content, "options": {**asdict(options), "api_key": None}, "sample": sample}
        )
    )


def request_keys(
    cases: Sequence[TestCase], options: BackendOptions, *, repeat: int = 1
) -> dict[str, frozenset[str]]:
    """Per case id, the cache keys a run of `cases` with `options` asks for.

    Keys come from the backend's own `build_request`, the function the runner uses, so they
    are the response cache's keys by construction (content-addressed: the case id is not
    part of them, and two cases asking the same thing share one answer).
    """
    backend = key_backend(options)
    out: dict[str, frozenset[str]] = {}
    for case in cases:
        keys = set()
        for sample in range(repeat):
            request = backend.build_request(case, sample)
            keys.add(request.cache_key or _conversation_key(case, options, sample))
        out[case.id] = frozenset(keys)
    return out


def changed_requests(
    head: Sequence[TestCase],
    head_options: BackendOptions,
    base: Sequence[TestCase],
    base_options: BackendOptions,
    *,
    repeat: int = 1,
) -> list[TestCase]:
    """The head cases whose model request differs from every request the base run made.

    Exactly the cases a head run asks the model for when the base run's answers are in the
    response cache: a changed message, a changed tool the case offers (or its order), a
    changed setting, a new case. Everything else is answered from the cache.
    """
    asked: set[str] = set()
    for keys in request_keys(base, base_options, repeat=repeat).values():
        asked |= keys
    wanted = request_keys(head, head_options, repeat=repeat)
    return [c for c in head if not wanted[c.id] <= asked]


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


def tree_at_ref(repo_dir: Path, ref: str, directory: Path, dest: Path) -> Path:
    """Write the files under `directory` as committed at `ref` into `dest`; returns the
    directory's counterpart inside `dest` (what `build_cases` needs to build the base's cases
    from the base's own config, tools, cases and pools, without touching the work tree)."""
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
    rel = directory.resolve().relative_to(root).as_posix()
    prefix = "" if rel == "." else rel + "/"
    items: list[Any] = list(commit.tree.traverse())
    for blob in items:
        path = str(getattr(blob, "path", ""))
        if getattr(blob, "type", "") != "blob" or not path.startswith(prefix):
            continue
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob.data_stream.read())
    out = dest / rel
    out.mkdir(parents=True, exist_ok=True)
    return out


def options_for(model: ModelSettings) -> BackendOptions:
    """The request-shaping settings a run of a config's `model:` section sends (what enters
    a cache key), resolved like the run resolves them (`bfcl_action.settings`).

    The endpoint and key are the same on both sides of a comparison, so they are left out.
    """
    settings = settings_of_section(model)
    options = backend_options(settings.model_copy(update={"model": model.name or "model"}))
    return replace(options, base_url=None)

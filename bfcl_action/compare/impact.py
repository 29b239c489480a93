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

import difflib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from bfcl_action.core.fingerprint import canonical_json, sha256_hex
from bfcl_action.core.records import FunctionDoc, TestCase
from bfcl_action.settings.config import ModelSettings
from bfcl_action.settings.resolve import backend_options, settings_of_section

if TYPE_CHECKING:  # the runner imports the comparison, which imports this module
    from bfcl_action.model.options import BackendOptions
    from bfcl_action.model.request import ModelClient


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


class WordChange(BaseModel):
    """A run of words in a description diff: kept, added or removed."""

    op: Literal["same", "added", "removed"]
    text: str


class FieldChange(BaseModel):
    """One field of a tool definition that differs: where, how, before and after.

    `path` names the field (`description`, `parameters.city`, `parameters.location.lat`,
    `parameters.tags[]`); descriptions carry a word diff in `words`.
    """

    path: str
    kind: Literal[
        "description", "added", "removed", "retyped", "re-described", "required", "changed"
    ]
    before: str | None = None
    after: str | None = None
    words: list[WordChange] = Field(default_factory=list)


class ToolChange(BaseModel):
    """One tool definition a change added, removed or changed, as the reports show it."""

    name: str
    kind: Literal["added", "removed", "changed"] = "changed"
    summary: str = ""
    fields: list[FieldChange] = Field(default_factory=list)
    """What changed, field by field (changed tools only)."""
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None


def _tool_dict(fn: FunctionDoc) -> dict[str, Any]:
    return fn.model_dump(mode="json", exclude_none=True)


def word_diff(before: str, after: str) -> list[WordChange]:
    """`before` -> `after` as runs of kept, removed and added words (whitespace-split)."""
    old, new = before.split(), after.split()
    out: list[WordChange] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.append(WordChange(op="same", text=" ".join(old[i1:i2])))
            continue
        if i2 > i1:
            out.append(WordChange(op="removed", text=" ".join(old[i1:i2])))
        if j2 > j1:
            out.append(WordChange(op="added", text=" ".join(new[j1:j2])))
    return out


def _type_text(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {_type_text(schema['items'])}"
    return str(kind) if kind is not None else "any"


def _short(value: Any) -> str:
    return canonical_json(value)


def _schema_changes(
    path: str, old: dict[str, Any], new: dict[str, Any], required: tuple[bool, bool] | None
) -> list[FieldChange]:
    """Field changes of one parameter schema (and, recursively, of its properties/items)."""
    out: list[FieldChange] = []
    if _type_text(old) != _type_text(new):
        out.append(
            FieldChange(path=path, kind="retyped", before=_type_text(old), after=_type_text(new))
        )
    old_text, new_text = str(old.get("description") or ""), str(new.get("description") or "")
    if old_text != new_text:
        out.append(
            FieldChange(
                path=path,
                kind="re-described",
                before=old_text,
                after=new_text,
                words=word_diff(old_text, new_text),
            )
        )
    if required is not None and required[0] != required[1]:
        out.append(
            FieldChange(
                path=path,
                kind="required",
                before="required" if required[0] else "optional",
                after="required" if required[1] else "optional",
            )
        )
    nested = {"type", "description", "properties", "required", "items"}
    for key in sorted((old.keys() | new.keys()) - nested):
        if old.get(key) != new.get(key):
            out.append(
                FieldChange(
                    path=f"{path} {key}",
                    kind="changed",
                    before=None if key not in old else _short(old[key]),
                    after=None if key not in new else _short(new[key]),
                )
            )
    out += _properties_changes(path, old, new)
    old_items, new_items = old.get("items"), new.get("items")
    if isinstance(old_items, dict) and isinstance(new_items, dict):
        out += [
            c
            for c in _schema_changes(f"{path}[]", old_items, new_items, None)
            if c.kind != "retyped"  # the array's own line already names the item type
        ]
    return out


def _properties_changes(path: str, old: dict[str, Any], new: dict[str, Any]) -> list[FieldChange]:
    old_props = old.get("properties") if isinstance(old.get("properties"), dict) else {}
    new_props = new.get("properties") if isinstance(new.get("properties"), dict) else {}
    assert isinstance(old_props, dict) and isinstance(new_props, dict)
    old_required = set(old.get("required") or [])
    new_required = set(new.get("required") or [])
    out: list[FieldChange] = []
    for name in sorted(old_props.keys() | new_props.keys()):
        where = f"{path}.{name}"
        if name not in old_props:
            out.append(
                FieldChange(
                    path=where,
                    kind="added",
                    after=_type_text(new_props[name])
                    + (", required" if name in new_required else ""),
                )
            )
        elif name not in new_props:
            out.append(FieldChange(path=where, kind="removed", before=_type_text(old_props[name])))
        elif isinstance(old_props[name], dict) and isinstance(new_props[name], dict):
            out += _schema_changes(
                where,
                old_props[name],
                new_props[name],
                (name in old_required, name in new_required),
            )
    return out


def field_changes(before: FunctionDoc, after: FunctionDoc) -> list[FieldChange]:
    """Every field that differs between two versions of a tool, description first."""
    out: list[FieldChange] = []
    if before.description != after.description:
        out.append(
            FieldChange(
                path="description",
                kind="description",
                before=before.description,
                after=after.description,
                words=word_diff(before.description, after.description),
            )
        )
    out += _properties_changes("parameters", before.parameters, after.parameters)
    skip = {"properties", "required", "type"}
    for key in sorted((before.parameters.keys() | after.parameters.keys()) - skip):
        if before.parameters.get(key) != after.parameters.get(key):
            out.append(
                FieldChange(
                    path=f"parameters {key}",
                    kind="changed",
                    before=_short(before.parameters.get(key)),
                    after=_short(after.parameters.get(key)),
                )
            )
    return out


def _summary(fields: Sequence[FieldChange]) -> str:
    words = {
        "description": "description changed",
        "added": "{} added",
        "removed": "{} removed",
        "retyped": "{} retyped",
        "re-described": "{} re-described",
        "required": "{} now {}",
        "changed": "{} changed",
    }
    parts = []
    for f in fields:
        name = f.path.removeprefix("parameters.")
        template = words[f.kind]
        parts.append(
            template.format(name, f.after) if f.kind == "required" else template.format(name)
        )
    return "; ".join(parts) or "definition changed"


def describe_tool_changes(
    base: Sequence[FunctionDoc], head: Sequence[FunctionDoc]
) -> list[ToolChange]:
    """What changed between two tool sets, by tool name (the tools `tool_changes` lists),
    field by field, for the comparison report to show next to the results they may explain."""
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
            fields = field_changes(before[name], after[name])
            out.append(
                ToolChange(
                    name=name,
                    summary=_summary(fields),
                    fields=fields,
                    before=_tool_dict(before[name]),
                    after=_tool_dict(after[name]),
                )
            )
    return out


def key_client(options: BackendOptions) -> ModelClient:
    """The request path for `options`, used only to compute request keys (pure: no request
    is sent, no cache opened).

    A `replay:` model is keyed as the model it replays would be: impact is about what would be
    asked, and both sides of a comparison use the same backend.
    """
    from bfcl_action.model.request import open_client

    return open_client(replace(options, api_key=options.api_key or "unset"))


def _conversation_key(case: TestCase, options: BackendOptions, sample: int) -> str:
    """A multi-turn case has no single request; each step is cached on its own and every
    step follows from the case, the settings and the answers before it. So its steps are all
    reused exactly when its content (id and source location aside) and the settings are."""
    content = case.model_dump(
        mode="json", exclude={"id", "source", "suite", "dataset", "environment_paths", "cluster"}
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

    Keys come from the request builder and the request path's key, the functions a run
    uses (`model.forms.case_request`, `ModelClient.key`), so they are the response cache's
    keys by construction (content-addressed: the case id is not part of them, and two cases
    asking the same thing share one answer).
    """
    from bfcl_action.core.categories import is_multi_turn
    from bfcl_action.model.forms import case_request
    from bfcl_action.model.render import FunctionRenderer
    from bfcl_action.model.types import PermanentError

    client = key_client(options)
    renderer = FunctionRenderer()
    prompts: dict[str, str] = {}
    out: dict[str, frozenset[str]] = {}
    for case in cases:
        keys = set()
        for sample in range(repeat):
            if is_multi_turn(case.category):
                keys.add(_conversation_key(case, options, sample))
                continue
            try:
                request, _ = case_request(case, options.mode, renderer, sample, prompts)
            except PermanentError:  # never asked: keyed by content, like a conversation
                keys.add(_conversation_key(case, options, sample))
                continue
            keys.add(client.key(request))
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
    return request_delta(head, head_options, base, base_options, repeat=repeat)[0]


def request_delta(
    head: Sequence[TestCase],
    head_options: BackendOptions,
    base: Sequence[TestCase],
    base_options: BackendOptions,
    *,
    repeat: int = 1,
) -> tuple[list[TestCase], set[str]]:
    """`changed_requests`, plus the distinct new request keys: what a cached head run sends
    (cases asking the same thing, e.g. a case and its k=0 distractor copy, are asked once)."""
    asked: set[str] = set()
    for keys in request_keys(base, base_options, repeat=repeat).values():
        asked |= keys
    wanted = request_keys(head, head_options, repeat=repeat)
    new = {k for keys in wanted.values() for k in keys} - asked
    return [c for c in head if not wanted[c.id] <= asked], new


def options_for(model: ModelSettings) -> BackendOptions:
    """The request-shaping settings a run of a config's `model:` section sends (what enters
    a cache key), resolved like the run resolves them (`bfcl_action.settings.resolve`).

    The endpoint and key are the same on both sides of a comparison, so they are left out.
    """
    settings = settings_of_section(model)
    options = backend_options(settings.model_copy(update={"model": model.name or "model"}))
    return replace(options, base_url=None)

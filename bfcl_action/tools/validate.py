"""Checks on one tool definition, reporting every problem with its position.

What is checked, and why:
- the name is legal for OpenAI-compatible APIs (`^[A-Za-z0-9_-]{1,64}$`); dots are allowed
  because BFCL's own names have them and the runner maps `a.b` to `a_b` for such APIs;
- the parameter schema is valid JSON Schema (the metaschema its `$schema` names, else draft 7:
  as strict on tool schemas and several times faster than 2020-12)
  and an object at the top;
- every `required` name is defined in `properties` (a warning: JSON Schema and providers allow
  it, but the model has no description of it);
- `enum` values and `default`s have the declared type, and a default is one of the enum
  (warnings: providers accept both, and `default: null` is not even a warning);
- sizes are sane (name length, description length, properties per object, nesting depth,
  enum size), with limits configurable in `.bfcl.yml` (`tool_limits`);
- what the target provider would reject, per profile (`tool_limits.provider`, by default
  the configured endpoint's: OpenAI's host -> `openai`, any other -> `generic`): `openai`
  refuses an `array` without `items`, a function description over 1,024 characters, and
  with `strict: true` any object that does not set `additionalProperties: false` or does
  not list every property in `required`; `generic`
  (vLLM, Ollama and other OpenAI-compatible servers) only warns about the first and keeps
  the looser size limits. Otherwise every case offering the tool would come back as an
  infrastructure error. A provider's limit is an error for that tool only (`tool_only`): it
  is left out and the rest of the set still loads.
"""

from __future__ import annotations

import functools
import keyword
import re
from collections.abc import Iterable
from typing import Any, Literal
from urllib.parse import urlsplit

from jsonschema.validators import Draft7Validator, validator_for
from pydantic import BaseModel, ConfigDict

from bfcl_action.core.records import FunctionDoc, SourceLocation
from bfcl_action.safety.redact import shorten
from bfcl_action.tools.dialect import (
    BFCL_TO_JSON,
    JSON_TYPES,
    bfcl_to_json_schema,
    json_schema_to_bfcl,
)
from bfcl_action.tools.formats import BFCL_TYPES, FROM_FILE, RawTool
from bfcl_action.tools.issues import Severity, ToolIssue, describe
from bfcl_action.tools.source import Document, JsonPath, path_label

NAME_PATTERN = re.compile(r"[A-Za-z0-9_-]+\Z")
MAPPED_NAME_PATTERN = re.compile(r"[A-Za-z0-9_.-]+\Z")
"""Used with `fullmatch`: `$` would also accept a trailing newline (`lookup\\n`)."""
LEGAL_NAME = "letters, digits, '_' or '-' ('.' is allowed and mapped to '_')"


class ToolLimits(BaseModel):
    """Size limits a tool definition must respect (`.bfcl.yml`: `tool_limits`)."""

    model_config = ConfigDict(extra="forbid")

    max_name_length: int = 64
    """OpenAI's limit for function names."""
    max_description_chars: int = 4096
    max_properties: int = 100
    """Parameters per object, at any level."""
    max_depth: int = 8
    """Nesting of objects/arrays inside the parameter schema."""
    max_enum_values: int = 500
    max_tools: int = 128
    """Tools offered in one request (OpenAI's limit)."""
    provider: Literal["openai", "generic"] | None = None
    """Whose rules the tools must pass: `openai` (the API's own checks) or `generic`
    (OpenAI-compatible servers such as vLLM or Ollama, which check less). Unset, it follows
    the configured endpoint (`for_endpoint`); a loader given no endpoint reads as `generic`.
    Either way a provider's limit leaves only the tool that breaks it out."""

    def for_endpoint(self, base_url: str | None) -> ToolLimits:
        """These limits with the profile of the endpoint the tools are sent to, unless
        `provider` was set: OpenAI's API (no `base_url`, or OpenAI's host) -> `openai`,
        any other server -> `generic`."""
        if self.provider is not None:
            return self
        host = (urlsplit(base_url).hostname or "") if base_url else "api.openai.com"
        openai = host == "api.openai.com" or host.endswith(".openai.com")
        return self.model_copy(update={"provider": "openai" if openai else "generic"})


OPENAI_DESCRIPTION_CHARS = 1024
"""OpenAI refuses a function description longer than this."""


def mapped_name(name: str) -> str:
    """The name an API that forbids dots sees (BFCL's own convention: `a.b` -> `a_b`)."""
    return name.replace(".", "_")


def matches_type(value: Any, type_name: str) -> bool:
    """Whether a JSON value has a schema type (JSON Schema or BFCL spelling)."""
    kind = BFCL_TO_JSON.get(type_name, type_name)
    if kind == "any":
        return True
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "null":
        return value is None
    return True


def schema_types(schema: dict[str, Any]) -> list[str] | None:
    """Declared type names of a schema node (None when it declares none)."""
    kind = schema.get("type")
    if isinstance(kind, str):
        types = [kind]
    elif isinstance(kind, list) and all(isinstance(k, str) for k in kind):
        types = list(kind)
    else:
        return None
    if schema.get("nullable") is True and "null" not in types:
        types.append("null")
    return types


def _defined_properties(node: dict[str, Any]) -> set[str]:
    """Property names a node defines, its `allOf`/`anyOf`/`oneOf` branches included (a
    `required` list beside branches that define the properties is valid JSON Schema)."""
    props = node.get("properties")
    names = set(props) if isinstance(props, dict) else set()
    for key in ("allOf", "anyOf", "oneOf"):
        branches = node.get(key)
        for branch in branches if isinstance(branches, list) else []:
            if isinstance(branch, dict):
                names |= _defined_properties(branch)
    return names


def value_matches(value: Any, schema: dict[str, Any]) -> bool:
    types = schema_types(schema)
    return types is None or any(matches_type(value, t) for t in types)


@functools.cache
def _metaschema_validator(cls: Any) -> Any:
    """One validator per metaschema (building one costs more than validating a schema)."""
    return cls(cls.META_SCHEMA)


class _ToolChecker:
    def __init__(self, doc: Document, raw: RawTool, limits: ToolLimits) -> None:
        self.doc = doc
        self.raw = raw
        self.limits = limits
        self.issues: list[ToolIssue] = []
        self.tool: str | None = None

    def field(self, path: JsonPath) -> str:
        return path_label(path[len(self.raw.path) :]) or "(tool)"

    def add(
        self,
        path: JsonPath,
        message: str,
        *,
        expected: str | None = None,
        found: str | None = None,
        key: bool = False,
        severity: Severity = Severity.ERROR,
        tool_only: bool = False,
    ) -> None:
        line, col = self.doc.where(path, key=key) or (None, None)
        self.issues.append(
            ToolIssue(
                file=self.doc.file,
                line=line,
                column=col,
                tool=self.tool,
                field=self.field(path),
                message=message,
                expected=expected,
                found=found,
                severity=severity,
                tool_only=tool_only,
            )
        )

    def get(self, path: JsonPath) -> tuple[bool, Any]:
        node: Any = self.doc.data
        for part in path:
            if isinstance(part, int):
                if not isinstance(node, list) or part >= len(node):
                    return False, None
            elif not isinstance(node, dict) or part not in node:
                return False, None
            node = node[part]
        return True, node

    # ----------------------------------------------------------------- fields

    def check_name(self) -> str | None:
        present, name = self.get(self.raw.name_path)
        if self.raw.name is not None:
            present, name = True, self.raw.name
        if not present:
            self.add(self.raw.name_path, "missing tool name", expected="a string 'name'")
            return None
        if not isinstance(name, str) or not name:
            self.add(
                self.raw.name_path, "invalid tool name", expected=LEGAL_NAME, found=describe(name)
            )
            return None
        self.tool = name
        if len(name) > self.limits.max_name_length:
            self.add(
                self.raw.name_path,
                "tool name too long",
                expected=f"at most {self.limits.max_name_length} characters",
                found=f"{len(name)} characters",
            )
        if not MAPPED_NAME_PATTERN.fullmatch(name):
            self.add(self.raw.name_path, "illegal tool name", expected=LEGAL_NAME, found=repr(name))
        return name

    def check_description(self) -> str:
        present, text = self.get(self.raw.description_path)
        if self.raw.description is not None:
            present, text = True, self.raw.description
        if not present or text is None or text == "":
            self.add(
                self.raw.path,
                "no description; models choose tools by their descriptions",
                severity=Severity.WARNING,
            )
            return ""
        if not isinstance(text, str):
            self.add(
                self.raw.description_path,
                "description must be text",
                expected="a string",
                found=describe(text),
            )
            return ""
        if self.limits.provider == "openai" and len(text) > OPENAI_DESCRIPTION_CHARS:
            self.add(
                self.raw.description_path,
                "description too long for OpenAI (tool_limits.provider: openai)",
                expected=f"at most {OPENAI_DESCRIPTION_CHARS} characters",
                found=f"{len(text)} characters",
                tool_only=True,
            )
            return text
        if len(text) > self.limits.max_description_chars:
            self.add(
                self.raw.description_path,
                "description too long",
                expected=f"at most {self.limits.max_description_chars} characters",
                found=f"{len(text)} characters",
                tool_only=True,
            )
        return text

    # ----------------------------------------------------------------- strict mode

    def strict_requested(self) -> bool:
        present, strict = self.get((*self.raw.name_path[:-1], "strict"))
        return present and strict is True

    def check_strict(self, node: Any, path: JsonPath) -> None:
        """OpenAI's strict mode (`strict: true`): every object closes its properties
        (`additionalProperties: false`) and lists all of them in `required`."""
        if not isinstance(node, dict):
            return
        if "object" in (schema_types(node) or []) or "properties" in node:
            if node.get("additionalProperties") is not False:
                self.add(
                    path,
                    "strict mode needs `additionalProperties: false` on every object",
                    expected="additionalProperties: false",
                    found=describe(node.get("additionalProperties", "(absent)")),
                    tool_only=True,
                )
            props = node.get("properties")
            if isinstance(props, dict):
                required = node.get("required")
                listed = set(required) if isinstance(required, list) else set()
                missing = [name for name in props if name not in listed]
                if missing:
                    self.add(
                        path,
                        "strict mode needs every property in `required` (make optional ones "
                        'nullable: `type: ["string", "null"]`)',
                        expected="required: " + ", ".join(props),
                        found="missing " + ", ".join(missing),
                        tool_only=True,
                    )
                for name, sub in props.items():
                    self.check_strict(sub, (*path, "properties", name))
        items = node.get("items")
        if isinstance(items, dict):
            self.check_strict(items, (*path, "items"))
        for key in ("anyOf", "$defs", "definitions"):
            group = node.get(key)
            subs = group.items() if isinstance(group, dict) else enumerate(group or [])
            for name, sub in subs:
                self.check_strict(sub, (*path, key, name))

    # ----------------------------------------------------------------- schema

    def allowed_types(self) -> set[str]:
        types = set(JSON_TYPES)
        if not self.raw.json_schema_dialect:
            types |= BFCL_TYPES
        return types

    def check_schema(self, node: Any, path: JsonPath, depth: int) -> None:
        if not isinstance(node, dict):
            self.add(path, "invalid schema", expected="a schema object", found=describe(node))
            return
        if depth > self.limits.max_depth:
            self.add(
                path,
                "schema nested too deeply",
                expected=f"at most {self.limits.max_depth} levels",
                found=f"level {depth}",
            )
            return
        kinds = node.get("type")
        if kinds is not None:
            listed = kinds if isinstance(kinds, list) else [kinds]
            allowed = self.allowed_types()
            for i, kind in enumerate(listed):
                if not isinstance(kind, str) or kind not in allowed:
                    # BFCL's checker reads a type it does not know as `any`, and scores it
                    bfcl = not self.raw.json_schema_dialect and isinstance(kind, str)
                    hint = " (read as `any`)" if bfcl else ""
                    if self.raw.json_schema_dialect and kind in BFCL_TO_JSON:
                        hint = f" (BFCL's {kind!r} is JSON Schema's {BFCL_TO_JSON[kind]!r})"
                    where = (*path, "type", i) if isinstance(kinds, list) else (*path, "type")
                    self.add(
                        where,
                        f"unknown type{hint}",
                        expected="one of " + ", ".join(sorted(allowed)),
                        found=describe(kind),
                        severity=Severity.WARNING if bfcl else Severity.ERROR,
                    )
        props = node.get("properties")
        if props is not None:
            if not isinstance(props, dict):
                self.add(
                    (*path, "properties"),
                    "invalid properties",
                    expected="an object of parameter schemas",
                    found=describe(props),
                )
                props = None
            else:
                if len(props) > self.limits.max_properties:
                    self.add(
                        (*path, "properties"),
                        "too many parameters",
                        expected=f"at most {self.limits.max_properties}",
                        found=str(len(props)),
                    )
                for name, sub in props.items():
                    sub_path = (*path, "properties", name)
                    if not name.isidentifier() or keyword.iskeyword(name):
                        self.add(
                            sub_path,
                            "parameter name is not a Python identifier; prompt-mode answers"
                            " cannot name it as a keyword argument",
                            key=True,
                            severity=Severity.WARNING,
                        )
                    self.check_schema(sub, sub_path, depth + 1)
        required = node.get("required")
        if required is not None:
            if not isinstance(required, list):
                self.add(
                    (*path, "required"),
                    "invalid required list",
                    expected="a list of parameter names",
                    found=describe(required),
                )
            else:
                defined = sorted(_defined_properties(node))
                for i, item in enumerate(required):
                    if not isinstance(item, str):
                        self.add(
                            (*path, "required", i),
                            "invalid required entry",
                            expected="a parameter name",
                            found=describe(item),
                        )
                    elif item not in defined:
                        self.add(
                            (*path, "required", i),
                            f"required parameter {item!r} is not defined in properties",
                            expected="one of " + (", ".join(defined) or "no parameters"),
                            found=repr(item),
                            severity=Severity.WARNING,
                        )
        items = node.get("items")
        if isinstance(items, dict):
            self.check_schema(items, (*path, "items"), depth + 1)
        elif depth > 0 and "array" in (schema_types(node) or []) and items is None:
            openai = self.limits.provider == "openai"
            self.add(
                path,
                "array parameter without `items`"
                + (": OpenAI rejects the whole tool" if openai else "; models guess the items"),
                expected="an `items` schema",
                found="none",
                severity=Severity.ERROR if openai else Severity.WARNING,
                tool_only=True,
            )
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            self.check_schema(extra, (*path, "additionalProperties"), depth + 1)
        self.check_values(node, path)

    def check_values(self, node: dict[str, Any], path: JsonPath) -> None:
        types = schema_types(node)
        type_text = " or ".join(types) if types else ""
        enum = node.get("enum")
        if enum is not None:
            if not isinstance(enum, list) or not enum:
                self.add(
                    (*path, "enum"),
                    "invalid enum",
                    expected="a non-empty list of values",
                    found=describe(enum),
                )
                enum = None
            else:
                if len(enum) > self.limits.max_enum_values:
                    self.add(
                        (*path, "enum"),
                        "enum too large",
                        expected=f"at most {self.limits.max_enum_values} values",
                        found=f"{len(enum)} values",
                    )
                for i, value in enumerate(enum):
                    if not value_matches(value, node):
                        self.add(
                            (*path, "enum", i),
                            "enum value does not match the parameter type",
                            expected=f"type {type_text}",
                            found=describe(value),
                            severity=Severity.WARNING,
                        )
        # Providers do not check defaults (they are documentation for the model), and
        # `default: null` is how many generators write "optional": warnings, never errors.
        if node.get("default") is not None:
            value = node["default"]
            if not value_matches(value, node):
                self.add(
                    (*path, "default"),
                    "default does not match the parameter type",
                    expected=f"type {type_text}",
                    found=describe(value),
                    severity=Severity.WARNING,
                )
            elif isinstance(enum, list) and value not in enum:
                self.add(
                    (*path, "default"),
                    "default is not one of the enum values",
                    expected="one of " + ", ".join(repr(e) for e in enum[:10]),
                    found=describe(value),
                    severity=Severity.WARNING,
                )

    def check_top(self, node: Any, path: JsonPath) -> None:
        if not isinstance(node, dict):
            return
        kind = node.get("type")
        if kind is not None and kind not in ("object", "dict"):
            self.add(
                (*path, "type"),
                "parameters must be an object schema",
                expected="'object'",
                found=describe(kind),
            )

    def check_metaschema(self, json_schema: dict[str, Any], path: JsonPath) -> None:
        """Everything else the metaschema rejects, except where we already said it better."""
        meta = _metaschema_validator(validator_for(json_schema, default=Draft7Validator))
        seen = {i.field or "" for i in self.issues}
        for err in sorted(meta.iter_errors(json_schema), key=lambda e: e.path):
            where = (*path, *err.absolute_path)
            field = self.field(where)
            if any(field == s or field.startswith(s + ".") or s.startswith(field) for s in seen):
                continue
            rule = shorten(repr(err.validator_value), 80, "...")
            self.add(
                where,
                f"invalid JSON Schema: {err.validator!s} rule failed",
                expected=f"{err.validator!s}: {rule}",
                found=describe(err.instance),
            )
            seen.add(field)


def check_tool(
    doc: Document, raw: RawTool, limits: ToolLimits | None = None
) -> tuple[FunctionDoc | None, list[ToolIssue]]:
    """Validate one tool and normalise it to a BFCL `FunctionDoc` (None if it has errors)."""
    checker = _ToolChecker(doc, raw, limits or ToolLimits())
    name = checker.check_name()
    description = checker.check_description()
    for reading in raw.notes:
        checker.add(raw.schema_path, reading, severity=Severity.WARNING)
    present, schema = checker.get(raw.schema_path)
    if raw.schema is not FROM_FILE:
        present, schema = True, raw.schema
    if not present or schema is None:
        schema = {"type": "object", "properties": {}}
    elif not isinstance(schema, dict):
        checker.add(
            raw.schema_path,
            "invalid parameters",
            expected="a schema object",
            found=describe(schema),
        )
        schema = None
    converted: dict[str, Any] | None = None
    if schema is not None:
        checker.check_top(schema, raw.schema_path)
        checker.check_schema(schema, raw.schema_path, 0)
        if checker.strict_requested() and checker.limits.provider == "openai":
            checker.check_strict(schema, raw.schema_path)
        json_form = schema if raw.json_schema_dialect else bfcl_to_json_schema(schema)
        checker.check_metaschema(json_form, raw.schema_path)
        converted, notes = json_schema_to_bfcl(json_form)
        for note in notes:
            checker.add(
                (*raw.schema_path, *note.path),
                note.message,
                severity=Severity.ERROR if note.error else Severity.WARNING,
            )
    errors = [i for i in checker.issues if i.severity is Severity.ERROR]
    if errors or name is None or converted is None:
        return None, checker.issues
    line, col = doc.where(raw.path) or (None, None)
    function = FunctionDoc(
        name=name,
        description=description,
        parameters=converted,
        source=SourceLocation(file=doc.file, line=line, column=col),
    )
    return function, checker.issues


def check_tool_set(
    named: Iterable[tuple[str, SourceLocation]], count: int, limits: ToolLimits
) -> list[ToolIssue]:
    """Checks across files: duplicate names, names that collide once dots are mapped, count.

    `named` holds every tool that has a name, valid or not, so a duplicate is reported in the
    same run as the tool's other errors.
    """
    issues: list[ToolIssue] = []
    seen: dict[str, tuple[str, SourceLocation]] = {}
    for name, src in named:
        key = mapped_name(name)
        first = seen.get(key)
        if first is None:
            seen[key] = (name, src)
            continue
        first_name, fsrc = first
        what = "duplicate tool name" if first_name == name else "tool names collide"
        issues.append(
            ToolIssue(
                file=src.file,
                line=src.line,
                column=src.column,
                tool=name,
                field="name",
                message=f"{what} (first defined at {fsrc.file}:{fsrc.line})",
                expected="a name unique across all tool files (after mapping '.' to '_')",
                found=repr(name),
            )
        )
    if count > limits.max_tools:
        issues.append(
            ToolIssue(
                file="(tool set)",
                message="too many tools to offer in one request",
                expected=f"at most {limits.max_tools}",
                found=str(count),
            )
        )
    return issues

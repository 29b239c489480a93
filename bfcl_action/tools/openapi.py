"""An OpenAPI 3.0/3.1 description as a tool file: one function per operation.

The conversion is the one function-calling frameworks apply (OpenAI's GPT Actions, LangChain's
OpenAPI toolkit):

- name: the `operationId`, else `<method>_<path>` (characters outside `[A-Za-z0-9_-]` become
  `_`, cut at 64);
- description: the operation's `summary` and `description`, joined by a blank line;
- parameters: the path and query parameters of the path item and the operation (the
  operation's win on the same name and place; header and cookie parameters are the client's
  business and left out), each a property with its `schema` and `description`, required when
  `required: true` (path parameters always);
- a JSON request body (`application/json` or `+json`): an object body's properties join the
  parameters (`required` as the body says, when the body is required); any other body is one
  parameter, `body`. A body property named like a parameter is `body_<name>`;
- `$ref`s (`#/components/...`, anywhere in the document) are inlined within the document's
  expansion budget; a recursive reference stops as an untyped value, with a warning.
"""

from __future__ import annotations

import re
from typing import Any

from bfcl_action.safety.budget import Expansion
from bfcl_action.tools.source import JsonPath

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]+")


def is_openapi(data: Any) -> bool:
    return isinstance(data, dict) and "openapi" in data and isinstance(data.get("paths"), dict)


class _Refs:
    """Inlines local `$ref`s against the whole document, within one expansion budget."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.spent = Expansion()
        self.notes: list[str] = []

    def target(self, ref: str) -> Any:
        if not ref.startswith("#/"):
            return None
        node: Any = self.root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node

    def inline(self, node: Any, stack: tuple[str, ...] = ()) -> Any:
        if not self.spent.spend():
            if self.spent.count == self.spent.limit + 1:
                self.notes.append(f"$refs expand to over {self.spent.limit} nodes; cut there")
            return {}
        if isinstance(node, list):
            return [self.inline(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref in stack:
                self.notes.append(f"recursive $ref {ref!r} read as an untyped value")
                return {k: v for k, v in node.items() if k != "$ref"}
            target = self.target(ref)
            if target is None:
                return dict(node)  # left for the schema checks to report
            rest = {k: v for k, v in node.items() if k != "$ref"}
            merged = {**target, **rest} if isinstance(target, dict) else target
            return self.inline(merged, (*stack, ref))
        return {k: self.inline(v, stack) for k, v in node.items()}


def _name(operation: dict[str, Any], method: str, path: str) -> str:
    given = operation.get("operationId")
    raw = given if isinstance(given, str) and given else f"{method}_{path}"
    return NAME_CHARS.sub("_", raw).strip("_")[:64] or method


def _json_body(body: Any) -> tuple[Any, bool] | None:
    if not isinstance(body, dict) or not isinstance(body.get("content"), dict):
        return None
    for media, content in body["content"].items():
        kind = str(media).split(";")[0].strip().lower()
        if (kind == "application/json" or kind.endswith("+json")) and isinstance(content, dict):
            return content.get("schema", {}), body.get("required") is True
    return None


def operation_tool(
    refs: _Refs, path: str, method: str, item: dict[str, Any], operation: dict[str, Any]
) -> tuple[str, str, dict[str, Any]]:
    """(name, description, parameter schema) of one operation."""
    description = "\n\n".join(
        t.strip()
        for t in (operation.get("summary"), operation.get("description"))
        if isinstance(t, str) and t.strip()
    )
    params: dict[tuple[str, str], dict[str, Any]] = {}
    for source in (item.get("parameters"), operation.get("parameters")):
        for param in refs.inline(source) if isinstance(source, list) else []:
            if isinstance(param, dict) and isinstance(param.get("name"), str):
                params[(param["name"], str(param.get("in")))] = param
    properties: dict[str, Any] = {}
    required: list[str] = []
    for (name, place), param in params.items():
        if place not in ("path", "query"):
            continue
        prop = dict(param.get("schema") or {}) if isinstance(param.get("schema"), dict) else {}
        if isinstance(param.get("description"), str) and "description" not in prop:
            prop["description"] = param["description"]
        properties[name] = prop
        if place == "path" or param.get("required") is True:
            required.append(name)
    body = _json_body(refs.inline(operation.get("requestBody")))
    if body is not None:
        schema, body_required = body
        props = schema.get("properties") if isinstance(schema, dict) else None
        if isinstance(props, dict) and schema.get("type", "object") == "object":
            listed = schema.get("required") if isinstance(schema.get("required"), list) else []
            for name, prop in props.items():
                key = f"body_{name}" if name in properties else name
                properties[key] = prop
                if body_required and name in listed:
                    required.append(key)
        else:
            properties["body"] = schema if isinstance(schema, dict) else {}
            if body_required:
                required.append("body")
    return (
        _name(operation, method, path),
        description,
        {"type": "object", "properties": properties, "required": required},
    )


def operations(data: dict[str, Any]) -> list[tuple[JsonPath, str, str, dict[str, Any], list[str]]]:
    """(path in the document, name, description, schema, notes) of every operation."""
    refs = _Refs(data)
    out: list[tuple[JsonPath, str, str, dict[str, Any], list[str]]] = []
    for path, item in data["paths"].items():
        if not isinstance(item, dict):
            continue
        resolved = refs.inline(item) if "$ref" in item else item
        for method in METHODS:
            operation = resolved.get(method)
            if not isinstance(operation, dict):
                continue
            before = len(refs.notes)
            name, description, schema = operation_tool(refs, str(path), method, resolved, operation)
            out.append((("paths", path, method), name, description, schema, refs.notes[before:]))
    return out

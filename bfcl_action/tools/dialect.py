"""JSON Schema <-> BFCL's schema dialect.

BFCL's function docs use a Python-flavoured dialect of JSON Schema, and its checker reads the
type names to decide how to compare values. The mapping we apply (and document in
docs/own-tools.md):

| JSON Schema                         | BFCL dialect                                      |
|-------------------------------------|---------------------------------------------------|
| `object` (also the top level)       | `dict`                                            |
| `number`                            | `float` (an integer value is accepted, rule 5)    |
| `integer`, `string`, `boolean`, `array` | unchanged                                     |
| `["string", "null"]`, `anyOf: [X, {type: null}]` | X, with `nullable: true`             |
| unions of several non-null types    | the first type (a warning says so)                |
| no `type`                           | `any` (BFCL checks `any` as a string)             |
| `const: v`                          | `enum: [v]`                                       |
| BFCL's Java/JS names (`String`, `HashMap`, `ArrayList`, ...) | the JSON type they name |
| `$ref` to `#/$defs/...`/`#/definitions/...` | inlined (recursive references are an error) |
| `allOf` of objects                  | merged properties and required lists             |

Every other keyword (`description`, `enum`, `default`, `format`, `minimum`, `items`,
`additionalProperties`, ...) is kept as it is. The top level always carries `properties` and
`required`, as BFCL's checker reads both.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass
from typing import Any

from bfcl_action.safety.budget import DEFAULT_BUDGET, Expansion
from bfcl_action.tools.source import JsonPath

JSON_TO_BFCL = {"object": "dict", "number": "float"}
BFCL_TO_JSON = {
    "dict": "object",
    "float": "number",
    "double": "number",
    "tuple": "array",
    "list": "array",
    "bool": "boolean",
    "int": "integer",
    "long": "integer",
    "str": "string",
    # BFCL's Java and JavaScript function docs name their languages' types (BFCL_NOTES rule
    # 6); providers are sent the JSON type these name, as BFCL's own FC handler does.
    "String": "string",
    "char": "string",
    "Boolean": "boolean",
    "byte": "integer",
    "short": "integer",
    "Bigint": "integer",
    "Number": "number",
    "Array": "array",
    "ArrayList": "array",
    "Set": "array",
    "Queue": "array",
    "Stack": "array",
    "HashMap": "object",
    "Hashtable": "object",
}
JSON_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")
MAX_REF_DEPTH = 32


@dataclass(frozen=True)
class DialectNote:
    """Something the mapping had to decide; `error` notes make the tool unusable."""

    path: JsonPath
    message: str
    error: bool = False


def bfcl_to_json_schema(schema: Any) -> Any:
    """BFCL's dialect -> JSON Schema, so both can be validated against the metaschema."""
    if isinstance(schema, list):
        return [bfcl_to_json_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            mapped = BFCL_TO_JSON.get(value, value)
            if mapped in JSON_TYPES:  # `any` and names BFCL does not know: no type
                out[key] = mapped
        elif key == "properties" and isinstance(value, dict):
            out[key] = {k: bfcl_to_json_schema(v) for k, v in value.items()}
        elif key in {"items", "additionalProperties"}:
            out[key] = bfcl_to_json_schema(value)
        else:
            out[key] = value
    return out


def json_schema_to_bfcl(schema: dict[str, Any]) -> tuple[dict[str, Any], list[DialectNote]]:
    """Map a tool's parameter schema to BFCL's dialect; notes say what was decided."""
    notes: list[DialectNote] = []
    converted = _convert(schema, schema, (), notes, 0, Expansion())
    converted["type"] = "dict"
    converted.setdefault("properties", {})
    converted.setdefault("required", [])
    for key in ("$schema", "$id", "$defs", "definitions", "title"):
        converted.pop(key, None)
    return converted, notes


def _resolve(ref: str, root: dict[str, Any]) -> Any:
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _merge_all_of(parts: list[Any]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for part in parts:
        if not isinstance(part, dict):
            continue
        for key, value in part.items():
            if key == "properties" and isinstance(value, dict):
                merged.setdefault("properties", {}).update(value)
            elif key == "required" and isinstance(value, list):
                req = merged.setdefault("required", [])
                req.extend(v for v in value if v not in req)
            else:
                merged.setdefault(key, value)
    return merged


def _convert(
    schema: Any,
    root: dict[str, Any],
    path: JsonPath,
    notes: list[DialectNote],
    depth: int,
    spent: Expansion,
) -> Any:
    if not isinstance(schema, dict):
        return deepcopy(schema)
    if not spent.spend():
        if spent.count == spent.limit + 1:
            notes.append(
                DialectNote(
                    path,
                    f"schema expands to over {spent.limit} nodes ($ref/$defs inlining)",
                    error=True,
                )
            )
        return {"type": "any"}
    if depth > MAX_REF_DEPTH or len(path) > 2 * DEFAULT_BUDGET.max_depth:
        notes.append(DialectNote(path, "schema is recursive or nested too deeply", error=True))
        return {"type": "any"}
    node = dict(schema)
    ref = node.pop("$ref", None)
    if isinstance(ref, str):
        target = _resolve(ref, root)
        if target is None:
            notes.append(DialectNote(path, f"cannot resolve $ref {ref!r}", error=True))
        else:
            node = {**target, **node}
            depth += 1
    if isinstance(node.get("allOf"), list):
        node = {**_merge_all_of(node.pop("allOf")), **node}
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if not isinstance(branches, list):
            continue
        node.pop(key)
        resolved = []
        for b in branches:
            if isinstance(b, dict) and isinstance(b.get("$ref"), str):
                target = _resolve(b["$ref"], root)
                b = {**(target or {}), **{k: v for k, v in b.items() if k != "$ref"}}
            resolved.append(b)
        non_null = [b for b in resolved if not (isinstance(b, dict) and b.get("type") == "null")]
        if len(non_null) < len(resolved):
            node["nullable"] = True
        if non_null:
            kinds = {b.get("type") if isinstance(b, dict) else None for b in non_null}
            if len(non_null) > 1 and len(kinds) > 1:
                notes.append(
                    DialectNote(
                        path,
                        f"{key} of several types narrowed to the first branch for BFCL's checker",
                    )
                )
            first = non_null[0]
            if isinstance(first, dict):
                node = {**first, **node}
    if "const" in node and "enum" not in node:
        node["enum"] = [node.pop("const")]

    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type":
            out["type"] = _map_type(value, path, notes, out)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {
                name: _convert(sub, root, (*path, "properties", name), notes, depth, spent)
                for name, sub in value.items()
            }
        elif key == "items":
            if isinstance(value, list):
                value = value[0] if value else {}
            out[key] = _convert(value, root, (*path, "items"), notes, depth, spent)
        elif key == "additionalProperties" and isinstance(value, dict):
            out[key] = _convert(value, root, (*path, key), notes, depth, spent)
        elif key in {"$defs", "definitions"}:
            continue
        else:
            out[key] = deepcopy(value)
    if "type" not in out:
        out["type"] = "dict" if "properties" in out else "any"
    return out


def _map_type(value: Any, path: JsonPath, notes: list[DialectNote], out: dict[str, Any]) -> str:
    if isinstance(value, list):
        non_null = [v for v in value if v != "null"]
        if len(non_null) < len(value):
            out["nullable"] = True
        if len(non_null) > 1:
            notes.append(
                DialectNote(
                    (*path, "type"),
                    f"union type {value} narrowed to {non_null[0]!r} for BFCL's checker",
                )
            )
        value = non_null[0] if non_null else "null"
    text = str(value)
    return JSON_TO_BFCL.get(text, text)

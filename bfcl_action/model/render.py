"""How a case's functions are shown to the model, in both modes, computed once per function set.

Behaviour follows BFCL's inference pipeline (read, not copied):
- every description gets a language note ("... in Python 3 syntax."); Java/JavaScript
  parameters become strings whose description names the source type, since those values are
  written as source text;
- FC mode: BFCL's type names become JSON-Schema ones (`dict` -> `object`, `float` ->
  `number` plus a note, unknown -> `string`) and the top level becomes `object`;
- prompt mode: the function list as indented JSON inside a fixed instruction text.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from bfcl_action.core.fingerprint import canonical_json, sha256_hex
from bfcl_action.core.records import FunctionDoc, Language
from bfcl_action.model.naming import NameMap

_LANGUAGE_NOTE = {
    Language.PYTHON: " Note that the provided function is in Python 3 syntax.",
    Language.JAVA: " Note that the provided function is in Java 8 SDK syntax.",
    Language.JAVASCRIPT: " Note that the provided function is in JavaScript syntax.",
}
_LANGUAGE_NAME = {Language.JAVA: "Java", Language.JAVASCRIPT: "JavaScript"}

TO_JSON_SCHEMA = {
    "integer": "integer",
    "number": "number",
    "float": "number",
    "double": "number",
    "string": "string",
    "String": "string",
    "char": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "tuple": "array",
    "ArrayList": "array",
    "Array": "array",
    "Queue": "array",
    "Stack": "array",
    "dict": "object",
    "object": "object",
    "HashMap": "object",
    "Hashtable": "object",
    "byte": "integer",
    "short": "integer",
    "long": "integer",
    "Bigint": "integer",
    "any": "string",
    "Any": "string",
}


def function_docs_json(functions: list[FunctionDoc]) -> list[dict[str, Any]]:
    """The functions as BFCL JSON dicts (what a BFCL entry's `function` field holds)."""
    return [f.model_dump(mode="json", exclude_none=True) for f in functions]


def with_language_notes(
    functions: list[dict[str, Any]], language: Language
) -> list[dict[str, Any]]:
    """BFCL's per-language preparation of function docs (applied in both modes)."""
    out = copy.deepcopy(functions)
    for item in out:
        item["description"] = str(item.get("description", "")) + _LANGUAGE_NOTE[language]
        if language is Language.PYTHON:
            continue
        lang = _LANGUAGE_NAME[language]
        props = item.get("parameters", {}).get("properties", {})
        for value in props.values():
            kind = value.get("type", "string")
            desc = str(value.get("description", ""))
            if kind == "any":
                desc += (
                    f" This parameter can be of any type of {lang} object in string representation."
                )
            else:
                desc += f" This is {lang} {kind} type parameter in string representation."
            list_kinds = ("ArrayList", "Array") if language is Language.JAVA else ("array",)
            if kind in list_kinds and isinstance(value.get("items"), dict):
                inner = value["items"].get("type", "any")
                desc += (
                    f" The list elements are of type {inner};"
                    " they are not in string representation."
                )
                del value["items"]
            if language is Language.JAVASCRIPT and kind == "dict" and "properties" in value:
                desc += (
                    " The dictionary entries have the following schema; they are not in string"
                    f" representation. {json.dumps(value['properties'])}"
                )
                del value["properties"]
            value["description"] = desc
            value["type"] = "string"
    return out


def _schema_properties(properties: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, raw in properties.items():
        value = dict(raw) if isinstance(raw, dict) else {}
        kind = value.get("type")
        if kind == "float":
            value["format"] = "float"
            value["description"] = (
                str(value.get("description", "")) + " This is a float type value."
            )
        value["type"] = TO_JSON_SCHEMA.get(kind, "string") if isinstance(kind, str) else "string"
        if isinstance(value.get("properties"), dict):
            value["properties"] = _schema_properties(value["properties"])
        items = value.get("items")
        if isinstance(items, dict):
            value["items"] = _schema_item(items)
        out[key] = value
    return out


def _schema_item(raw: dict[str, Any]) -> dict[str, Any]:
    item = dict(raw)
    kind = item.get("type")
    item["type"] = TO_JSON_SCHEMA.get(kind, "string") if isinstance(kind, str) else "string"
    if isinstance(item.get("properties"), dict):
        item["properties"] = _schema_properties(item["properties"])
    if isinstance(item.get("items"), dict):
        item["items"] = _schema_item(item["items"])
    return item


def to_tool_schemas(functions: list[dict[str, Any]], names: NameMap) -> list[dict[str, Any]]:
    """Function schemas (`name`, `description`, JSON-Schema `parameters`) for BFCL function
    docs (already language-noted); a provider wraps them in its own `tools` form."""
    tools: list[dict[str, Any]] = []
    for raw in functions:
        fn = copy.deepcopy(raw)
        fn.pop("source", None)
        params = dict(fn.get("parameters") or {})
        params["type"] = "object"
        params["properties"] = _schema_properties(dict(params.get("properties") or {}))
        fn["parameters"] = params
        fn["name"] = names.api_name(str(fn["name"]))
        tools.append(fn)
    return tools


@dataclass(frozen=True)
class RenderedFunctions:
    """What one distinct function set becomes: tools (FC), the function text (prompt), names."""

    key: str
    tools: list[dict[str, Any]]
    names: NameMap
    docs_json: str


class FunctionRenderer:
    """Renders each distinct (functions, language) once; later cases reuse the result."""

    def __init__(self) -> None:
        self._memo: dict[str, RenderedFunctions] = {}
        self.renders = 0

    def render(self, functions: list[FunctionDoc], language: Language) -> RenderedFunctions:
        docs = function_docs_json(functions)
        key = sha256_hex(language.value + canonical_json(docs))
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        self.renders += 1
        noted = with_language_notes(docs, language)
        names = NameMap.for_names(str(d["name"]) for d in noted)
        rendered = RenderedFunctions(
            key=key,
            tools=to_tool_schemas(noted, names),
            names=names,
            docs_json=json.dumps(noted, indent=4),
        )
        self._memo[key] = rendered
        return rendered

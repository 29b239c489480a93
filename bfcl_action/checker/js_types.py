"""JavaScript argument values: strings of JavaScript source text, converted by schema type.

Rules, observed from BFCL 2026.3.23 (kept where a verdict depends on them; docs/checker.md
lists the quirks):

- String: one pair of matching outer quotes (`"..."` or `'...'`) is removed, else verbatim.
- integer `-?digits`; float `-?digits[.digits]` (no exponent); Bigint `-?digitsn`;
  Boolean `true|false`; any verbatim.
- array: a 2-D literal `[[..], [..]]` (or `new Array([..], [..])`) becomes lists of untyped
  literals; else a 1-D `[a, b]` / `new Array(a, b)` whose items are converted by the item type
  (quoted items as the item type with String inside). Only a prefix is read, so text after
  the closing bracket is ignored. Items are split on every comma, even inside quotes.
- dict: `{}` or `{k: v, ...}` read up to the first `}`; quoted values that look like numbers
  become numbers; `[..]` values become arrays.
- Anything unreadable stays a string.
"""

from __future__ import annotations

import re
from typing import Any

JS_TYPES: dict[str, type] = {
    "String": str,
    "integer": int,
    "float": float,
    "Bigint": int,
    "Boolean": bool,
    "dict": dict,
    "array": list,
    "any": str,
}
"""JavaScript schema type name -> the Python type its converted value must have."""

COLLECTION_TYPES = frozenset({"array"})

MAX_COLLECTION_CHARS = 10_000
"""Longer collection text is not parsed (stays a string); the dict pattern is super-linear."""

_INTEGER = re.compile(r"-?\d+$")
_FLOAT = re.compile(r"-?\d+(?:\.\d+)?$")
_BIGINT = re.compile(r"(-?\d+)n$")
_FLAT_ARRAY = re.compile(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)")
_NEW_ARRAY = re.compile(r"new\s+Array\(")
_OBJECT = re.compile(r"\{(.*?)\}")
_PAIR = re.compile(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)")


class _Unreadable(Exception):
    """Text that upstream's converter would raise on; the caller keeps the text."""


def convert_js(text: str, type_name: str, item_type: str | None = None) -> Any:
    """The Python value `text` stands for as a JavaScript `type_name`; unreadable text stays."""
    try:
        return _convert(text, type_name, item_type)
    except _Unreadable:
        return text


def _convert(text: str, type_name: str, item_type: str | None) -> Any:
    if type_name == "String":
        if len(text) >= 1 and text[0] == text[-1] and text[0] in "\"'":
            return text[1:-1]
        return text
    if type_name == "integer":
        return _int(text) if _INTEGER.match(text) else text
    if type_name == "float":
        return float(text) if _FLOAT.match(text) else text
    if type_name == "Bigint":
        match = _BIGINT.match(text)
        if not match:
            return text
        if text.endswith("\n"):
            raise _Unreadable(text)
        return _int(match.group(1))
    if type_name == "Boolean":
        return text == "true" if text in ("true", "false") else text
    if type_name == "dict":
        return _object(text.strip())
    if type_name == "array":
        return _array(text.strip(), item_type)
    if type_name == "any":
        return text
    raise _Unreadable(text)


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # more digits than int() accepts
        raise _Unreadable(text) from None


def js_literal(text: str) -> Any:
    """An untyped JavaScript literal: true/false, a quoted string, else int, float or text."""
    text = text.strip()
    if text == "true":
        return True
    if text == "false":
        return False
    if len(text) >= 1 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _array(code: str, item_type: str | None) -> Any:
    if len(code) > MAX_COLLECTION_CHARS:
        return code
    try:
        end = _nested_array_end(code)
        if end is not None:
            return [
                [js_literal(part) for part in inner.split(",")]
                for inner in _bracket_groups(code[:end])
            ]
        match = _FLAT_ARRAY.match(code)
        if not match:
            return code
        body = match.group(1) if match.group(1) is not None else match.group(2)
        body = body.strip()
        parts = body.split(",") if body else []
        if not item_type:
            return [js_literal(part) for part in parts]
        items = []
        for raw in parts:
            part = raw.strip()
            nested = "String" if part.startswith(("'", '"')) else None
            items.append(_convert(part, item_type, nested))
        return items
    except _Unreadable:
        return code


def _bracket_groups(text: str) -> list[str]:
    """Bodies of `[...]` in order, each up to its first `]` on the same line (lazily, as a
    non-overlapping regex scan would); the first body loses one leading `[`."""
    groups: list[str] = []
    position = 0
    while True:
        start = text.find("[", position)
        if start < 0:
            break
        close = text.find("]", start + 1)
        if close < 0:
            break
        newline = text.find("\n", start + 1, close)
        if newline >= 0:
            position = newline + 1
            continue
        groups.append(text[start + 1 : close])
        position = close + 1
    result = []
    for index, body in enumerate(groups):
        body = body.strip()
        if index == 0 and body.startswith("["):
            body = body[1:]
        result.append(body)
    return result


def _nested_array_end(code: str) -> int | None:
    """End of the 2-D array literal at the start of `code`, or None.

    Gives the match end of upstream's backtracking pattern
    `\\[\\s*\\[.*?\\]\\s*(,\\s*\\[.*?\\]\\s*)*\\]` (or its `new Array(` form) in linear
    time: that regex takes exponential time on unclosed input, so it is evaluated here by
    dynamic programming over the positions of `]`, right to left.
    """
    size = len(code)
    if size == 0:
        return None
    if code[0] == "[":
        start, closer = _skip_space(code, 1), "]"
    else:
        match = _NEW_ARRAY.match(code)
        if not match:
            return None
        start, closer = _skip_space(code, match.end()), ")"
    if start >= size or code[start] != "[":
        return None
    # after_close[e]: end of a successful match continuing after a `]` at e (None: fails);
    # first_from[i]: the first success over `]` positions >= i before a newline.
    next_solid = [size] * (size + 1)
    for index in range(size - 1, -1, -1):
        next_solid[index] = next_solid[index + 1] if code[index].isspace() else index
    first_from: list[int | None] = [None] * (size + 1)
    for index in range(size - 1, start, -1):
        char = code[index]
        if char == "\n":
            first_from[index] = None
            continue
        found: int | None = None
        if char == "]":
            after = next_solid[index + 1]
            if after < size and code[after] == closer:
                found = after + 1
            elif after < size and code[after] == ",":
                opener = next_solid[after + 1]
                if opener < size and code[opener] == "[":
                    found = first_from[opener + 1]
        first_from[index] = found if found is not None else first_from[index + 1]
    return first_from[start + 1]


def _skip_space(code: str, index: int) -> int:
    while index < len(code) and code[index].isspace():
        index += 1
    return index


def _object(code: str) -> Any:
    if code == "{}":
        return {}
    if len(code) > MAX_COLLECTION_CHARS:
        return code
    match = _OBJECT.match(code)
    if not match:
        return code
    body = match.group(1)
    result: dict[str, Any] = {}
    if ":" not in body:  # no pair can match; spares the pattern's quadratic failure
        return result
    for raw_key, raw_value in _PAIR.findall(body):
        key = raw_key.strip().strip("'\"")
        value = raw_value.strip()
        if value.startswith("[") and value.endswith("]"):
            result[key] = _array(value, None)
        elif value.startswith("{") and value.endswith("}"):
            result[key] = _object(value)
        else:
            result[key] = js_literal(value.strip("'\""))
    return result

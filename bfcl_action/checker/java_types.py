"""Java argument values: strings of Java source text, converted by the schema's type name.

BFCL asks for Java call syntax in `simple_java`, so every argument value reaches the checker
as source text (`"5"`, `"3.0f"`, `"new int[]{1, 2}"`). The schema type says how to read it;
text that does not fit the type stays a string (and then usually fails the type check).

Rules, observed from BFCL 2026.3.23 (written from behaviour, kept bug for bug where a
verdict depends on it; docs/checker.md lists the quirks):

- byte/short/integer `-?digits`; long `-?digits[lL]`; float `-?d[.d][e±d][fF]`;
  double the same without the suffix; boolean `true|false`.
- char, String and any are kept verbatim (quotes included: BFCL's char pattern can never
  match, so `'a'` stays `'a'`).
- Array `new T[]{a, b}`: items split on commas, each converted by the item type (so String
  items keep their quotes). ArrayList `new ArrayList<T>(Arrays.asList(a, b))` or the
  double-brace `{{ add(a); }}` form: String and char items lose their first and last
  character, others are converted by the item type. HashMap `new HashMap<..>() {{ put("k",
  v); }}`: values are read as untyped Java literals.
- Set, Hashtable, Queue and Stack are not converted (upstream raises); the text stays.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

JAVA_TYPES: dict[str, type] = {
    "byte": int,
    "short": int,
    "integer": int,
    "float": float,
    "double": float,
    "long": int,
    "boolean": bool,
    "char": str,
    "Array": list,
    "ArrayList": list,
    "Set": set,
    "HashMap": dict,
    "Hashtable": dict,
    "Queue": list,
    "Stack": list,
    "String": str,
    "any": str,
}
"""Java schema type name -> the Python type its converted value must have."""

COLLECTION_TYPES = frozenset({"Array", "ArrayList"})
"""Types whose schema carries an `items` type used for the elements."""

MAX_COLLECTION_CHARS = 10_000
"""Longer collection text is not parsed (stays a string): the patterns below are searched
anywhere in the text and cost up to quadratic time on hostile input."""

_INTEGER = re.compile(r"-?\d+$")
_LONG = re.compile(r"(-?\d+)[lL]$")
_FLOAT = re.compile(r"(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)[fF]$")
_DOUBLE = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$")
_AS_LIST = re.compile(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)")
_DOUBLE_BRACE_HEAD = re.compile(r"new\s+ArrayList<\w*>\(\)\s*\{\{")
_ADD = re.compile(r"add\((.+?)\)")
_EMPTY_LIST = re.compile(r"new\s+ArrayList<\w*>\(\)")
_ARRAY = re.compile(r"new\s+\w+\[\]\s*\{(.*?)\}")
_MAP_START = re.compile(r"new\s+HashMap<")
_MAP_HEAD_END = re.compile(r">\s*\(\)\s*\{")
_PUT = re.compile(r"put\(\"(.*?)\",\s*(.*?)\)")
_EMPTY_MAP = re.compile(r"new\s+HashMap<.*?>\s*\(\)")


def _to_int(text: str) -> int | str:
    try:
        return int(text)
    except ValueError:  # more digits than int() accepts
        return text


def convert_java(text: str, type_name: str, item_type: str | None = None) -> Any:
    """The Python value `text` stands for as a Java `type_name`; unreadable text stays."""
    reader = _READERS.get(type_name)
    return text if reader is None else reader(text, item_type)


def _integer(text: str, _item_type: str | None) -> Any:
    return _to_int(text) if _INTEGER.match(text) else text


def _long(text: str, _item_type: str | None) -> Any:
    match = _LONG.match(text)
    return _to_int(match.group(1)) if match else text


def _float(text: str, _item_type: str | None) -> Any:
    match = _FLOAT.match(text)
    return float(match.group(1)) if match else text


def _double(text: str, _item_type: str | None) -> Any:
    return float(text) if _DOUBLE.match(text) else text


def _boolean(text: str, _item_type: str | None) -> Any:
    return text == "true" if text in ("true", "false") else text


def _collection(text: str, item_type: str | None, read: Callable[[str, str | None], Any]) -> Any:
    return text if len(text) > MAX_COLLECTION_CHARS else read(text, item_type)


def _item(text: str, item_type: str | None, *, unquote: bool) -> Any:
    if unquote and item_type in ("char", "String"):
        return text[1:-1]
    if item_type:
        return convert_java(text, item_type)
    return java_literal(text)


def _array(text: str, item_type: str | None) -> Any:
    match = _ARRAY.search(text)
    if not match:
        return text
    parts = (part.strip() for part in match.group(1).split(","))
    return [_item(part, item_type, unquote=False) for part in parts if part]


def _array_list(text: str, item_type: str | None) -> Any:
    match = _AS_LIST.search(text)
    if match:
        parts = match.group(1).split(",")
    else:
        body = _double_brace_body(text)
        if body is None:
            return [] if _EMPTY_LIST.search(text) else text
        parts = _ADD.findall(body)
    return [_item(part.strip(), item_type, unquote=True) for part in parts]


def _next_non_space(text: str) -> list[int]:
    """For each index, the first index at or after it that is not whitespace (`\\s`)."""
    out = [len(text)] * (len(text) + 1)
    for index in range(len(text) - 1, -1, -1):
        out[index] = out[index + 1] if text[index].isspace() else index
    return out


def _double_brace_body(text: str) -> str | None:
    """Group 1 of BFCL's `new\\s+ArrayList<\\w*>\\(\\)\\s*\\{\\{\\s*(.+?)\\s*\\}\\}` (DOTALL,
    `search`), found in linear time: that pattern backtracks quadratically over whitespace.

    For a head ending at `h`, the regex takes all whitespace (group start `g`), then the
    shortest group (at least one character) after which only whitespace precedes `}}`; if
    none exists it gives the group one whitespace character back (`{{ }}` -> `" "`). When a
    head fails no later head can succeed (its candidates are a subset), so the first head
    decides."""
    head = _DOUBLE_BRACE_HEAD.search(text)
    if head is None:
        return None
    nxt = _next_non_space(text)
    h = head.end()
    g = nxt[h]
    for end in range(g + 1, len(text)):
        r = nxt[end]
        if text.startswith("}}", r):
            return text[g:end]
    if g > h and text.startswith("}}", g):
        return text[g - 1 : g]
    return None


def _map_body(text: str) -> str | None:
    """Group 1 of BFCL's `new\\s+HashMap<.*?>\\s*\\(\\)\\s*\\{\\s*\\{?\\s*(.*?)\\s*\\}?\\s*\\}`
    (DOTALL, `search`), found in linear time (the pattern is polynomial over whitespace:
    48 s for 300 spaces).

    The head ends at the first `>` after the leftmost `new HashMap<` that is followed by
    `()` and `{`; the group starts after whitespace, an optional `{` and whitespace, and is
    the shortest text after which the next non-space character is `}`. No `}` after the
    group start means no match at all (later heads start later still)."""
    start = _MAP_START.search(text)
    if start is None:
        return None
    head = _MAP_HEAD_END.search(text, start.end())
    if head is None:
        return None
    nxt = _next_non_space(text)
    g = nxt[head.end()]
    if text.startswith("{", g):
        g = nxt[g + 1]
    for end in range(g, len(text)):
        if nxt[end] < len(text) and text[nxt[end]] == "}":
            return text[g:end]
    return None


def _hash_map(text: str, _item_type: str | None = None) -> Any:
    body = _map_body(text)
    if body is None:
        return {} if _EMPTY_MAP.search(text) else text
    if not body.strip():
        return {}
    return {key: java_literal(value.strip()) for key, value in _PUT.findall(body)}


_READERS: dict[str, Callable[[str, str | None], Any]] = {
    "byte": _integer,
    "short": _integer,
    "integer": _integer,
    "long": _long,
    "float": _float,
    "double": _double,
    "boolean": _boolean,
    "Array": lambda text, item_type: _collection(text, item_type, _array),
    "ArrayList": lambda text, item_type: _collection(text, item_type, _array_list),
    "HashMap": lambda text, item_type: _collection(text, item_type, _hash_map),
}
"""Converters by type name; every other type (char, String, any, ...) keeps the text."""

_LONG_LITERAL = re.compile(r"-?\d+[lL]$")


def java_literal(text: str) -> Any:
    """An untyped Java literal: true/false, "string", 5L, 1.5f, else int, float or the text."""
    if text == "true":
        return True
    if text == "false":
        return False
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if _LONG_LITERAL.match(text):
        return _to_int(text[:-1])
    match = _FLOAT.match(text)
    if match:
        return float(match.group(1))
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text

"""A fast path for the common, simple shapes of prompt-mode Python call lists.

`decode_python` parses text with `ast.parse`, which costs far more than reading a typical
output (`[get_weather(city='Paris', days=3)]`). This module reads a deliberately small
grammar with compiled regexes (the scanning happens in C) and answers `None` for anything
outside it, so that `decode_python` falls back to the `ast` path. On every text it accepts it
gives exactly what the `ast` path gives; tests/decode/test_decode_python_fast.py checks this on
generated near-misses and on the whole conformance corpus.

The grammar, on the text after `bracket_text`:

- list: `[` calls separated by `,`, trailing comma allowed, `]`; `[]` is no call;
- call: a dotted ASCII name (no spaces around the dots), `(`, positional values (dropped, as
  the `ast` path drops them), then keyword arguments `name=value` (a repeated name keeps its
  last value, as there), trailing comma allowed, `)`; no `*args`, `**kwargs` or nested calls;
- value: a literal, or a list or dict (string keys) of values, nested at most `_NESTING`
  deep;
- literal: a `'`/`"` string without backslashes, its own quote, control characters
  (`\\x00`-`\\x1f`, `\\x7f`) or surrogates, so its value is its text; a decimal number
  without leading zeros (at most 18 integer digits, an optional `.digits` fraction and an
  optional exponent; no `_`, `j`, `1.` or `.5`), optionally preceded directly by `-`, which
  Python's compiler reads exactly as `int`/`float` do; `True`, `False`, `None`; `...`
  (the string `"..."`); a bare ASCII name (its name as a string, `true` -> `"true"`);
- spaces, tabs and `\\n` between tokens (all inside brackets, where Python ignores them);
- no name (call part, keyword or value) is a Python keyword other than `True`, `False`,
  `None`, nor `__debug__`.

Patterns use possessive quantifiers and atomic groups only, so matching time is linear in the
text whatever it holds.
"""

from __future__ import annotations

import functools
import keyword
import re
from typing import Any, Final

_NESTING: Final = 3
"""Deepest list/dict nesting inside one argument the fast path reads (`[{"a": [1]}]` is 3)."""


def _trie(words: list[str]) -> str:
    """An alternation matching exactly `words`, branching by prefix (cheaper than a flat
    list of alternatives, which is tried one by one)."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        branches = [re.escape(char) + emit(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(tree)


_RESERVED = [*keyword.kwlist, "__debug__"]
"""Names Python refuses as names (or, `__debug__`, may refuse in some positions)."""
_VALUE_RESERVED = [word for word in _RESERVED if word not in ("True", "False", "None")]
"""Of those, the ones no value can be either."""

_WORD = r"[A-Za-z_][A-Za-z0-9_]*+"
_NAME = rf"(?!{_trie(_RESERVED)}(?![A-Za-z0-9_])){_WORD}"
"""A name Python accepts where it names something (a call part, a keyword argument)."""
_DOTTED = rf"{_NAME}(?:\.{_NAME})*+"
_WS = r"[ \t\n]*+"
_STR = r"""(?:'[^'\\\x00-\x1f\x7f\ud800-\udfff]*+'|"[^"\\\x00-\x1f\x7f\ud800-\udfff]*+")"""
_NUM = r"(?:-?+(?:0|[1-9][0-9]{0,17}+)(?:\.[0-9]{1,40}+)?+(?:[eE][-+]?+[0-9]{1,4}+)?+)"
_ATOM = rf"(?>{_STR}|{_NUM}|True|False|None|\.\.\.|{_WORD})"


def _items(open_: str, item: str, close: str) -> str:
    """`open item, item, ... close`, trailing comma allowed, one copy of `item`."""
    return rf"{open_}{_WS}(?:{item}{_WS}(?:,|(?={close})){_WS})*+{close}"


def _value(depth: int) -> str:
    if depth == 0:
        return _ATOM
    inner = _value(depth - 1)
    listed = _items(r"\[", inner, r"\]")
    mapped = _items(r"\{", rf"{_STR}{_WS}:{_WS}{inner}", r"\}")
    return rf"(?>{_ATOM}|{listed}|{mapped})"


_VALUE = _value(_NESTING)
_STRING = r"""(?:'[^']*+'|"[^"]*+")"""


def _skip(depth: int) -> str:
    """A list or dict of validated text, to its matching bracket, nested `depth` more levels
    (brackets balance there and strings hold no quote of their own, so only those count)."""
    inner = "" if depth == 0 else "|" + _skip(depth - 1)
    return rf"""[\[{{](?:{_STRING}|[^\[\]{{}}'"]++{inner})*+[\]}}]"""


_CONTAINER = _skip(_NESTING - 1)
_ARGUMENTS = rf"\({_WS}(?:(?:{_NAME}{_WS}={_WS})?+{_VALUE}{_WS}(?:,|(?=\))){_WS})*+\)"
"""Positional and keyword arguments in any order, one copy of `_VALUE`; a positional one
after a keyword one (a syntax error) is refused while extracting."""
_CALL = rf"{_DOTTED}{_WS}{_ARGUMENTS}"

_VALID = re.compile(_items(r"\[", _CALL, r"\]"))
"""The whole text must match this (`fullmatch`), and `_NO_RESERVED`, before anything is
extracted."""

_NO_RESERVED = re.compile(
    rf"""(?:[^'"A-Za-z_]++|{_STRING}|(?!{_trie(_VALUE_RESERVED)}(?![A-Za-z0-9_])){_WORD})*+"""
)
"""Text with no word outside strings in `_VALUE_RESERVED` (`fullmatch`; for
`not_a_call_list`: `decode_python_fast` refuses those values as it reads them). `_ATOM`
reads any `_WORD`, so the grammar's patterns stay small to compile; call parts and keyword
names are `_NAME`s already. On text in the grammar a word outside strings is a name, or the
exponent of a number (`e5`)."""
_REFUSED_VALUES = frozenset(_VALUE_RESERVED)

_TOKENS = re.compile(
    rf"[ \t\n,)]*+(?:([A-Za-z_][A-Za-z0-9_.]*+){_WS}"
    rf"""(?:={_WS}({_STRING}|[^\s,)\[{{'"]++|{_CONTAINER})|\()"""
    rf"""|({_STRING}|{_CONTAINER}|[^\s,()'"\[\]{{}}=]++))"""
)
"""Run inside the outer brackets of validated text, each match starts where the last one
ended (separators are consumed up front) and is one of: a keyword argument (name, value
text, ``), a call head (name, ``, ``) or a positional value (``, ``, its text). A match
consumes a whole string or container, so their contents are never read as syntax."""

_PIECES = re.compile(r"""'[^']*+'|"[^"]*+"|[\[\]{}]|[^\s,:\[\]{}'"]++""")
"""On a validated list or dict: brackets and atoms, in order (`,` `:` and spaces skipped)."""

_CONSTANTS: dict[str, Any] = {"True": True, "False": False, "None": None, "...": "..."}
_NUMBER_START = frozenset("-0123456789")


def decode_python_fast(source: str) -> list[tuple[str, dict[str, Any]]] | None:
    """`(name, arguments)` per call of bracketed text, or `None` when the text is not in
    the simple grammar above (the caller then parses it with `ast`)."""
    if _VALID.fullmatch(source) is None:
        return None
    calls: list[tuple[str, dict[str, Any]]] = []
    arguments: dict[str, Any] = {}
    # Trailing separators hold no token; left in, each of their positions would restart a
    # failing `_TOKENS` match that scans them all again (quadratic on `[f(a=1)    ...   ]`).
    inner_end = max(1, min(len(source) - 1, _inner_end(source)))
    try:
        for name, text, positional in _TOKENS.findall(source, 1, inner_end):
            if text:
                first = text[0]
                if first == "'" or first == '"':
                    arguments[name] = text[1:-1]
                elif first == "[" or first == "{":
                    arguments[name] = _container(text)
                else:
                    arguments[name] = _atom(text)
            elif name:
                arguments = {}
                calls.append((name, arguments))
            elif arguments:  # a positional value after a keyword argument
                return None
            elif positional.startswith(("[", "{")):
                _container(positional)  # dropped, once read for reserved words
            elif positional in _REFUSED_VALUES:
                return None
    except _ReservedValue:
        return None
    return calls


class _ReservedValue(Exception):
    """A value that is a reserved word (`if`, `not`): Python refuses the text."""


def _inner_end(source: str) -> int:
    """End of the text inside the outer brackets, trailing separators (` \\t\\n,)`) cut."""
    end = len(source) - 1
    while end > 1 and source[end - 1] in " \t\n,)":
        end -= 1
    return end


def _atom(text: str) -> Any:
    first = text[0]
    if first == "'" or first == '"':
        return text[1:-1]
    if first in _NUMBER_START:
        if text.isdigit() or (first == "-" and text[1:].isdigit()):
            return int(text)
        return float(text)
    if text in _REFUSED_VALUES:
        raise _ReservedValue(text)
    return _CONSTANTS.get(text, text)


_NO_KEY = object()


def _container(text: str) -> Any:
    """Build a validated list/dict: containers are placed in their parent when opened (the
    same dict position the `ast` path gives), then filled."""
    stack: list[Any] = []
    keys: list[Any] = []
    root: Any = None
    for piece in _PIECES.findall(text):
        if piece == "]" or piece == "}":
            stack.pop()
            keys.pop()
            continue
        if piece == "[" or piece == "{":
            value: Any = [] if piece == "[" else {}
        else:
            value = _atom(piece)
        if not stack:
            root = value
        elif type(parent := stack[-1]) is list:
            parent.append(value)
        elif keys[-1] is _NO_KEY:
            keys[-1] = value
        else:
            parent[keys[-1]] = value
            keys[-1] = _NO_KEY
        if piece == "[" or piece == "{":
            stack.append(value)
            keys.append(_NO_KEY)
    return root


@functools.cache
def _values_only() -> re.Pattern[str]:
    """A list of plain values and no call (with `_NO_RESERVED`): it parses, and its first
    element is not a call. Compiled when first needed: most runs never ask."""
    return re.compile(_items(r"\[", _VALUE, r"\]"))


_FIRST_ELEMENT = re.compile(rf"\[{_WS}(?!\])(?:(-)|(\[)|(\{{)|({_NAME}))?")
_ELEMENT_NODES = ("Constant", "UnaryOp", "List", "Dict", "Name")
"""What `ast` calls the first element, by the group of `_FIRST_ELEMENT` that matched it
(none: a string, number, `True`, `False`, `None` or `...`)."""

_SURELY_INVALID = re.compile(
    rf"""\[{_WS}(?:\*\*|({_NAME})(?:[ \t\n]++{_NAME}|([ \t\n]*+)['"]|[ \t\n]*+!(?!=)))"""
)
"""Openings no Python expression can have: `[**`, or a first name followed by another name
(`[I am`; keywords such as `if`, `for` and `not` are excluded), by a string (`[I'm`, unless
the name is a string prefix written right before the quote, as in `f'..'`) or by `!`
(`[Sure!`). The tokenizer or parser rejects all of them, whatever follows."""

_STRING_PREFIXES = frozenset({"r", "u", "b", "br", "rb", "f", "fr", "rf"})


def not_a_call_list(source: str) -> str | None:
    """Why bracketed text outside the fast grammar surely fails to decode, or `None` (then
    only `ast` can tell).

    The same verdict the `ast` path gives (`decoder_failed`), for the two shapes of model
    output that are not calls at all: prose, and a list of plain values (`42`, `None`).
    """
    opening = _SURELY_INVALID.match(source)
    if opening is not None:
        name, space = opening.group(1, 2)
        if space != "" or name.lower() not in _STRING_PREFIXES:
            return "not a Python call list: SyntaxError: invalid syntax (prose, not code)"
    if _values_only().fullmatch(source) is not None and _NO_RESERVED.fullmatch(source):
        first = _FIRST_ELEMENT.match(source)
        if first is not None:
            kind = first.lastindex or 0
            return f"list element is a {_ELEMENT_NODES[kind]}, not a call"
    return None

"""An array member that JSON lines repeat, parsed and validated once per distinct text.

`bfcl-action check` reads lines that carry their case's function list: every sample of a
case repeats it, and it is most of a line (about four fifths of the bytes of the
conformance workload), so parsing and validating it on every line was a large part of the
command. `MemberMemo.cut` splits a line into the member's array (a text seen before:
validated already) and the rest of the line with `[]` in its place, which the caller parses
as it parses any line.

Why the cut line means the same as the whole line (else `cut` answers None and the caller
parses the whole line, so a doubt costs time, never a different result):

- the line starts `{`, and the text up to the first `"<member>": [` holds no backslash, an
  even number of quotes and no other bracket outside or inside strings: with no escapes,
  quotes alone mark the strings, so that key is a key of the line's top-level object;
- the array there is, byte for byte, a text validated before (`bytes.startswith`), and a
  JSON array ends at its matching `]`: a parser reading the line from there reads that text
  and no more, to the same value;
- the text after it cannot name the member again (JSON's last duplicate key would win): it
  holds neither `"<member>"` nor a `\\u0000`-`\\u007f` escape, the only other way to spell
  an ASCII character of a key;
- the caller parses the cut line with the same parser and checks the member is `[]` there.

A cut line is returned only when the whole line is within the parse budget, as
`safety.budget.within_limits` would have it checked before parsing: the line's length is at
most `max_nodes`, the cut line is within the limits, and the array's text was learnt from a
line within them, where it sat at the same depth (a top-level member) and held at most that
line's digits; an integer lies in one of the two parts, so the bounds hold for the whole
line. The cut saves that check over the array's bytes too.

A text is learnt from a line that could be cut but was not known: parsed alone by the
standard library's decoder (which finds where it ends) and validated by the caller's
function. The caller's parser may be another one (`check` reads lines with pydantic-core's):
both read the JSON text they accept to equal values, and a line the caller's parser refuses
is read by `json` in the end (`check`'s general path), so the memoised value is the value
either way. The memo holds at most `max_bytes` of text and starts
over when full, so distinct arrays cost bounded memory.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from bfcl_action.safety.budget import DEFAULT_BUDGET, within_limits

Value = TypeVar("Value")

_HEAD = 64
"""Bytes of an array text that index the memo; shorter arrays are not memoised."""
_NOT_SPECIAL = bytes(b for b in range(256) if b not in b'"\\[]{}')
"""Deleted by `translate`, to leave the quotes, backslashes and brackets of a text."""
_ASCII_ESCAPE = re.compile(rb"\\u00[0-7]")
"""An escape that could spell an ASCII character of a key."""
_DECODER = json.JSONDecoder()
"""Reads an array text and where it ends (`raw_decode`); holds no state between calls."""


class MemberMemo(Generic[Value]):
    """Validated values of one top-level array member by their exact JSON text, for one run
    over a file's lines."""

    def __init__(
        self,
        member: str,
        validate: Callable[[Any], Value],
        *,
        max_bytes: int = 16 * 1024 * 1024,
    ) -> None:
        """`member` is an ASCII key without quotes or backslashes; `validate` turns a parsed
        array into the caller's value, raising `ValueError` (pydantic's `ValidationError` is
        one) for what it refuses."""
        self._key = json.dumps(member).encode("ascii")
        self._opening = self._key + b": ["
        self._validate = validate
        self._max_bytes = max_bytes
        self._known: dict[bytes, tuple[bytes, Value]] = {}
        self._bytes = 0

    def cut(self, raw: bytes) -> tuple[bytes, Value] | None:
        """(`raw` with the member's array replaced by `[]`, that array validated), or None
        when the line cannot be cut soundly or is not known to be within the parse budget
        (see the module docstring) or the array does not validate; the caller then checks
        and parses the whole line."""
        if len(raw) > DEFAULT_BUDGET.max_nodes:
            return None
        key = raw.find(self._opening)
        if key < 1 or raw[0] != 0x7B:  # `{`
            return None
        special = raw[:key].translate(None, _NOT_SPECIAL)  # `{` and an even number of `"`
        if special.count(b'"') != len(special) - 1 or not len(special) % 2:
            return None
        start = key + len(self._opening) - 1
        known = self._known.get(raw[start : start + _HEAD])
        if known is not None and raw.startswith(known[0], start):
            text, value = known
        else:
            learnt = self._learn(raw, start)
            if learnt is None:
                return None
            text, value = learnt
        end = start + len(text)  # the rest is searched in place, not copied
        if raw.find(self._key, end) >= 0 or (
            raw.find(b"\\u00", end) >= 0 and _ASCII_ESCAPE.search(raw, end)
        ):
            return None
        line = raw[:start] + b"[]" + raw[end:]
        return (line, value) if within_limits(line) else None

    def _learn(self, raw: bytes, start: int) -> tuple[bytes, Value] | None:
        """The array text starting at `start` of a line within the parse budget, validated,
        and remembered when it is at least `_HEAD` bytes long (one text per head: a newer one
        replaces an older)."""
        if not within_limits(raw):
            return None
        try:
            tail = raw[start:].decode("utf-8")
            parsed, end = _DECODER.raw_decode(tail)
            text = tail[:end].encode("utf-8")
            value = self._validate(parsed)
        except (ValueError, RecursionError):  # not UTF-8, not JSON, not valid
            return None
        if len(text) >= _HEAD:
            if self._bytes + len(text) > self._max_bytes:
                self._known.clear()
                self._bytes = 0
            old = self._known.get(text[:_HEAD])
            self._bytes += len(text) - (len(old[0]) if old is not None else 0)
            self._known[text[:_HEAD]] = (text, value)
        return text, value

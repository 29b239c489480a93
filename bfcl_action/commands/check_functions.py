"""The `functions` of `check` input lines, parsed and validated once per distinct text.

Every sample of a case repeats its case's function list, and the list is most of a line
(about four fifths of the bytes of the conformance workload), so parsing and validating it
on every line was a large part of `bfcl-action check`. `FunctionMemo.cut` splits a line into
its `functions` value (a text seen before: validated already) and the rest of the line with
`[]` in its place, which the caller parses as it parses any line.

Why the cut line means the same as the whole line (else `cut` answers None and the caller
parses the whole line, so a doubt costs time, never a different verdict):

- the line starts `{`, and the text up to the first `"functions": [` holds no backslash,
  an even number of quotes and no other bracket outside or inside strings: with no escapes,
  quotes alone mark the strings, so that key is a key of the line's top-level object;
- the array there is, byte for byte, a text validated before (`bytes.startswith`), and a
  JSON array ends at its matching `]`: a parser reading the line from there reads that text
  and no more, to the same value;
- the text after it cannot name `functions` again (JSON's last duplicate key would win): it
  holds neither `"functions"` nor a `\\u006x`/`\\u007x` escape, the only other way to spell
  one of its letters in a key;
- the caller parses the cut line with the same parser and checks `functions` is `[]` there.

A cut line is returned only when the whole line is within the parse budget, as
`safety.budget.within_limits` would have it checked before parsing: the line's length is at
most `max_nodes`, the cut line is within the limits, and the list's text was learnt from a
line within them, where it sat at the same depth (the top-level `functions` member) and
held at most that line's digits; an integer lies in one of the two parts, so the bounds
hold for the whole line. The cut saves that check over the list's bytes too.

A text is learnt from a line that could be cut but was not known: parsed alone (its end
found by the standard library's decoder, its value read by the caller's parser) and
validated by the caller's function. The memo holds at most `max_bytes` of text and starts
over when full, so distinct lists cost bounded memory.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from bfcl_action.core.records import FunctionDoc
from bfcl_action.safety.budget import DEFAULT_BUDGET, within_limits

_KEY = b'"functions": ['
_HEAD = 64
"""Bytes of a function-list text that index the memo; shorter lists are not memoised."""
_NOT_SPECIAL = bytes(b for b in range(256) if b not in b'"\\[]{}')
"""Deleted by `translate`, to leave the quotes, backslashes and brackets of a text."""
_LETTER_ESCAPE = re.compile(rb"\\u00[67]")
"""An escape that could spell a letter of `functions`."""


class FunctionMemo:
    """Validated function lists by their exact JSON text, for one `check` run."""

    def __init__(
        self,
        parse: Callable[[bytes], Any],
        validate: Callable[[Any], list[FunctionDoc]],
        *,
        max_bytes: int = 16 * 1024 * 1024,
    ) -> None:
        """`parse` reads JSON text as the caller reads lines; `validate` turns a parsed
        `functions` value into the line model's field. Both raise `ValueError` (pydantic's
        `ValidationError` is one) for what they refuse."""
        self._parse = parse
        self._validate = validate
        self._max_bytes = max_bytes
        self._known: dict[bytes, tuple[bytes, list[FunctionDoc]]] = {}
        self._bytes = 0

    def cut(self, raw: bytes) -> tuple[bytes, list[FunctionDoc]] | None:
        """(`raw` with its `functions` array replaced by `[]`, that array validated), or None
        when the line cannot be cut soundly or is not known to be within the parse budget
        (see the module docstring) or the array is not a valid function list; the caller
        then checks and parses the whole line."""
        if len(raw) > DEFAULT_BUDGET.max_nodes:
            return None
        key = raw.find(_KEY)
        if key < 1 or raw[0] != 0x7B:  # `{`
            return None
        special = raw[:key].translate(None, _NOT_SPECIAL)  # `{` and an even number of `"`
        if special.count(b'"') != len(special) - 1 or not len(special) % 2:
            return None
        start = key + len(_KEY) - 1
        known = self._known.get(raw[start : start + _HEAD])
        if known is not None and raw.startswith(known[0], start):
            text, functions = known
        else:
            learnt = self._learn(raw, start)
            if learnt is None:
                return None
            text, functions = learnt
        rest = raw[start + len(text) :]
        if b'"functions"' in rest or (b"\\u00" in rest and _LETTER_ESCAPE.search(rest)):
            return None
        line = raw[:start] + b"[]" + rest
        return (line, functions) if within_limits(line) else None

    def _learn(self, raw: bytes, start: int) -> tuple[bytes, list[FunctionDoc]] | None:
        """The array text starting at `start` of a line within the parse budget, validated,
        and remembered when it is at least `_HEAD` bytes long (one text per head: a newer one
        replaces an older)."""
        if not within_limits(raw):
            return None
        try:
            tail = raw[start:].decode("utf-8")
            _, end = json.JSONDecoder().raw_decode(tail)
            text = tail[:end].encode("utf-8")
            functions = self._validate(self._parse(text))
        except (ValueError, RecursionError):  # not UTF-8, not JSON, not a function list
            return None
        if len(text) >= _HEAD:
            if self._bytes + len(text) > self._max_bytes:
                self._known.clear()
                self._bytes = 0
            old = self._known.get(text[:_HEAD])
            self._bytes += len(text) - (len(old[0]) if old is not None else 0)
            self._known[text[:_HEAD]] = (text, functions)
        return text, functions

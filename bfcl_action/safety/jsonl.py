"""The one JSON Lines reader of files and texts: BFCL data, result and score files,
history, Live releases, Batch API output. (The sandbox worker's pipe protocol frames its
own lines.)

Every JSONL file this project reads follows the same rules: lines are numbered from 1, blank
lines are skipped, a UTF-8 byte-order mark is ignored, and a bad line is reported with its
file and line number. `read_jsonl` stops at the first bad line (data a run depends on);
`scan_jsonl` reports each bad line and goes on (history, contributions: one bad line must not
lose the rest). pydantic-core's parser is used for speed (the official sets are ~9 MB of
JSON); the standard library's only to word the error of a bad line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, NamedTuple

import pydantic_core

from bfcl_action.core.errors import BfclActionError, InputError
from bfcl_action.safety.budget import BudgetError, check_value, within_limits
from bfcl_action.safety.escape import log_line


class JsonlLine(NamedTuple):
    """One non-blank line: its number, its value, or why it is not valid."""

    line: int
    value: Any
    error: str | None = None
    column: int | None = None


def numbered_lines(data: str | bytes) -> Iterator[tuple[int, str | bytes]]:
    """Numbered non-blank lines, split on `\n` only, for a reader that must look at a raw
    line before parsing it (a size budget): `str.splitlines` would also split on U+2028,
    U+0085 and other characters that JSON allows unescaped inside a string."""
    lines: list[str | bytes] = list(
        data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
        if isinstance(data, bytes)
        else data.removeprefix("\ufeff").split("\n")
    )
    for number, raw in enumerate(lines, start=1):
        if raw.strip():
            yield number, raw


def _parse(raw: str | bytes, number: int, objects: bool) -> JsonlLine:
    try:
        value = pydantic_core.from_json(raw)
    except ValueError:
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            return JsonlLine(number, None, f"not valid JSON: {exc.msg}", exc.colno)
        except UnicodeDecodeError as exc:
            return JsonlLine(number, None, f"not valid JSON: {exc.reason}")
        except RecursionError:
            return JsonlLine(number, None, "not valid JSON: nested too deeply")
        except ValueError as exc:  # an integer over Python's digit limit
            return JsonlLine(number, None, f"not valid JSON: {log_line(exc, 120)}")
    try:
        if not within_limits(raw):
            check_value(value)
    except BudgetError as exc:
        return JsonlLine(number, None, exc.message)
    if objects and not isinstance(value, dict):
        return JsonlLine(number, None, f"expected a JSON object, found {type(value).__name__}")
    return JsonlLine(number, value)


def scan_jsonl(data: str | bytes, *, objects: bool = True) -> Iterator[JsonlLine]:
    """Every non-blank line, valid or not; with `objects`, a non-object value is an error."""
    for number, raw in numbered_lines(data):
        yield _parse(raw, number, objects)


def read_jsonl(
    data: str | bytes,
    *,
    file: str,
    objects: bool = True,
    error: type[BfclActionError] = InputError,
) -> list[tuple[int, Any]]:
    """`(line number, value)` of every non-blank line; the first bad line raises `error`
    naming `file`, the line and (for a syntax error) the column."""
    rows: list[tuple[int, Any]] = []
    for entry in scan_jsonl(data, objects=objects):
        if entry.error is not None:
            raise error(entry.error, file=file, line=entry.line, column=entry.column)
        rows.append((entry.line, entry.value))
    return rows


__all__ = ["JsonlLine", "numbered_lines", "read_jsonl", "scan_jsonl"]

"""Position-aware loading of JSON, JSON Lines and YAML.

Every value of a loaded document keeps the 1-based line and column where it starts, so an
error about `parameters.properties.unit.default` can point an editor (or a GitHub annotation)
at the exact spot. The data itself is plain Python (dict, list, str, int, float, bool, None):
nothing downstream needs to know which format a file was written in.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import json
import json.decoder
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from bfcl_action.core.errors import InputError
from bfcl_action.safety.budget import DEFAULT_BUDGET, BudgetError, ParseBudget, read_text
from bfcl_action.safety.escape import log_line
from bfcl_action.safety.jsonl import numbered_lines

JsonPath = tuple[str | int, ...]
_MAX_INT_BITS = int(DEFAULT_BUDGET.max_int_digits * 3.33) + 1


def path_label(path: JsonPath) -> str:
    """A JSON path as people write it in messages: `parameters.properties.city[0]`."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


"""Keys and indexes from the document root to a value."""

Position = tuple[int, int]
"""1-based (line, column)."""


class ParseError(InputError):
    """A file is not well-formed JSON / YAML; carries the position of the first bad token."""


@dataclass
class Document:
    """Plain data plus where each value (and each mapping key) starts in the file."""

    file: str
    data: Any
    positions: dict[JsonPath, Position] = field(default_factory=dict)
    key_positions: dict[JsonPath, Position] = field(default_factory=dict)

    def where(self, path: JsonPath, *, key: bool = False) -> Position | None:
        """Position of `path`, or of its nearest ancestor that has one.

        With `key=True` the mapping key's position is preferred (useful for "unexpected key"
        errors); a missing value falls back to its parent, so "missing field" errors point at
        the object that lacks it.
        """
        if key and path in self.key_positions:
            return self.key_positions[path]
        for end in range(len(path), -1, -1):
            pos = self.positions.get(path[:end])
            if pos is not None:
                return pos
        return None

    def sub(self, prefix: JsonPath) -> Document:
        """The sub-document at `prefix`, with positions re-keyed relative to it."""
        n = len(prefix)

        def rekey(table: dict[JsonPath, Position]) -> dict[JsonPath, Position]:
            return {p[n:]: v for p, v in table.items() if p[:n] == prefix}

        data: Any = self.data
        for part in prefix:
            data = data[part]
        sub = Document(self.file, data, rekey(self.positions), rekey(self.key_positions))
        if () not in sub.positions:
            pos = self.where(prefix)
            if pos is not None:
                sub.positions[()] = pos
        return sub


# --------------------------------------------------------------------------- JSON


_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?")
_scanstring: Any = getattr(json.decoder, "scanstring")  # noqa: B009


class _JsonParser:
    """A small recursive-descent JSON parser that records positions.

    Strings and numbers are decoded exactly as `json` decodes them (its own `scanstring` and
    number grammar), so values are identical to `json.loads`; only positions are added.
    Duplicate keys are an error here (`json` silently keeps the last one).
    """

    def __init__(
        self, text: str, file: str, line_offset: int = 0, budget: ParseBudget = DEFAULT_BUDGET
    ) -> None:
        self.budget = budget
        self.s = text
        self.file = file
        self.line_offset = line_offset
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.positions: dict[JsonPath, Position] = {}
        self.key_positions: dict[JsonPath, Position] = {}

    def pos(self, index: int) -> Position:
        line = bisect.bisect_right(self.line_starts, index) - 1
        return line + 1 + self.line_offset, index - self.line_starts[line] + 1

    def fail(self, index: int, message: str) -> ParseError:
        line, col = self.pos(index)
        return ParseError(message, file=self.file, line=line, column=col)

    def found(self, index: int) -> str:
        if index >= len(self.s):
            return "end of file"
        return repr(self.s[index])

    def skip(self, i: int) -> int:
        m = _WS.match(self.s, i)
        assert m is not None
        return m.end()

    def parse(self) -> Any:
        i = self.skip(0)
        value, i = self.value(i, ())
        i = self.skip(i)
        if i != len(self.s):
            raise self.fail(i, f"invalid JSON: expected end of file, found {self.found(i)}")
        return value

    def value(self, i: int, path: JsonPath) -> tuple[Any, int]:
        s = self.s
        if len(path) >= self.budget.max_depth:
            raise self.fail(i, f"nesting deeper than {self.budget.max_depth} levels")
        self.positions[path] = self.pos(i)
        ch = s[i] if i < len(s) else ""
        if ch == "{":
            return self.obj(i + 1, path)
        if ch == "[":
            return self.arr(i + 1, path)
        if ch == '"':
            return self.string(i)
        for word, val in (("true", True), ("false", False), ("null", None)):
            if s.startswith(word, i):
                return val, i + len(word)
        m = _NUMBER.match(s, i)
        if m and m.end() > i:
            text = m.group(0)
            if m.group(1) or m.group(2):
                return float(text), m.end()
            if len(text.lstrip("-")) > self.budget.max_int_digits:
                raise self.fail(i, f"integer over {self.budget.max_int_digits} digits")
            return int(text), m.end()
        raise self.fail(i, f"invalid JSON: expected a value, found {self.found(i)}")

    def string(self, i: int) -> tuple[str, int]:
        try:
            text, end = _scanstring(self.s, i + 1, True)
        except json.JSONDecodeError as exc:
            raise self.fail(exc.pos, f"invalid JSON: {exc.msg}") from None
        return str(text), int(end)

    def obj(self, i: int, path: JsonPath) -> tuple[dict[str, Any], int]:
        out: dict[str, Any] = {}
        i = self.skip(i)
        if i < len(self.s) and self.s[i] == "}":
            return out, i + 1
        while True:
            if i >= len(self.s) or self.s[i] != '"':
                raise self.fail(i, f"invalid JSON: expected a quoted key, found {self.found(i)}")
            key_at = i
            key, i = self.string(i)
            if key in out:
                first = self.key_positions[(*path, key)]
                raise self.fail(
                    key_at, f"invalid JSON: duplicate key {key!r} (first at line {first[0]})"
                )
            self.key_positions[(*path, key)] = self.pos(key_at)
            i = self.skip(i)
            if i >= len(self.s) or self.s[i] != ":":
                raise self.fail(i, f"invalid JSON: expected ':', found {self.found(i)}")
            i = self.skip(i + 1)
            out[key], i = self.value(i, (*path, key))
            i = self.skip(i)
            if i < len(self.s) and self.s[i] == ",":
                i = self.skip(i + 1)
                continue
            if i < len(self.s) and self.s[i] == "}":
                return out, i + 1
            raise self.fail(i, f"invalid JSON: expected ',' or '}}', found {self.found(i)}")

    def arr(self, i: int, path: JsonPath) -> tuple[list[Any], int]:
        out: list[Any] = []
        i = self.skip(i)
        if i < len(self.s) and self.s[i] == "]":
            return out, i + 1
        while True:
            item, i = self.value(i, (*path, len(out)))
            out.append(item)
            i = self.skip(i)
            if i < len(self.s) and self.s[i] == ",":
                i = self.skip(i + 1)
                continue
            if i < len(self.s) and self.s[i] == "]":
                return out, i + 1
            raise self.fail(i, f"invalid JSON: expected ',' or ']', found {self.found(i)}")


def parse_json(text: str, file: str, budget: ParseBudget = DEFAULT_BUDGET) -> Document:
    """Parse one JSON document with positions; syntax errors raise `ParseError` at the spot."""
    if len(text) > budget.max_file_bytes:
        raise BudgetError(f"over the {budget.max_file_bytes}-byte limit", file=file)
    parser = _JsonParser(text.removeprefix("\ufeff"), file, budget=budget)
    data = parser.parse()
    return Document(file, data, parser.positions, parser.key_positions)


def parse_jsonl(text: str, file: str, budget: ParseBudget = DEFAULT_BUDGET) -> Document:
    """JSON Lines as one document whose root is the list of the non-blank lines' values."""
    positions: dict[JsonPath, Position] = {(): (1, 1)}
    key_positions: dict[JsonPath, Position] = {}
    items: list[Any] = []
    for number, line in numbered_lines(text):
        parser = _JsonParser(str(line), file, line_offset=number - 1, budget=budget)
        index = len(items)
        items.append(parser.parse())
        positions.update({(index, *p): v for p, v in parser.positions.items()})
        key_positions.update({(index, *p): v for p, v in parser.key_positions.items()})
    return Document(file, items, positions, key_positions)


# --------------------------------------------------------------------------- YAML


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    return yaml


class _Spent:
    """Values produced so far by `_plain` (aliases count at every use)."""

    def __init__(self, budget: ParseBudget, file: str) -> None:
        self.budget = budget
        self.file = file
        self.nodes = 0

    def spend(self, path: JsonPath, doc: Document) -> None:
        self.nodes += 1
        if self.nodes > self.budget.max_nodes:
            raise BudgetError(
                f"document has over {self.budget.max_nodes} values (YAML aliases expanded)",
                file=self.file,
            )
        if len(path) >= self.budget.max_depth:
            line = doc.where(path[:-1]) or (None, None)
            raise BudgetError(
                f"nesting deeper than {self.budget.max_depth} levels",
                file=self.file,
                line=line[0],
            )


def _plain(node: Any, path: JsonPath, doc: Document, spent: _Spent) -> Any:
    """ruamel's round-trip nodes -> plain Python, recording positions (0-based -> 1-based)."""
    spent.spend(path, doc)
    if isinstance(node, CommentedMap):
        doc.positions.setdefault(path, (node.lc.line + 1, node.lc.col + 1))
        out: dict[str, Any] = {}
        for key in node:
            child = (*path, str(key))
            kl, kc = node.lc.key(key)
            vl, vc = node.lc.value(key)
            doc.key_positions[child] = (kl + 1, kc + 1)
            value = node[key]
            if isinstance(value, CommentedMap | CommentedSeq) and len(value):
                doc.positions[child] = (value.lc.line + 1, value.lc.col + 1)
            else:
                doc.positions[child] = (vl + 1, vc + 1)
            out[str(key)] = _plain(value, child, doc, spent)
        return out
    if isinstance(node, CommentedSeq):
        doc.positions.setdefault(path, (node.lc.line + 1, node.lc.col + 1))
        items: list[Any] = []
        for index, value in enumerate(node):
            child = (*path, index)
            il, ic = node.lc.item(index)
            if isinstance(value, CommentedMap | CommentedSeq) and len(value):
                doc.positions[child] = (value.lc.line + 1, value.lc.col + 1)
            else:
                doc.positions[child] = (il + 1, ic + 1)
            items.append(_plain(value, child, doc, spent))
        return items
    return plain_scalar(node)


def plain_scalar(node: Any) -> Any:
    """ruamel scalar subclasses (ScalarFloat, ScalarBoolean, ...) -> builtin types."""
    if node is None or isinstance(node, bool):
        return node
    if type(node).__name__ == "ScalarBoolean":
        return bool(node)
    if isinstance(node, str):
        return str(node)
    if isinstance(node, int):
        if node.bit_length() > _MAX_INT_BITS:
            raise ValueError(f"integer over {DEFAULT_BUDGET.max_int_digits} digits")
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, _dt.date | _dt.datetime):
        return node.isoformat()
    if hasattr(node, "value"):  # TaggedScalar
        return plain_scalar(node.value)
    return node


def parse_yaml(text: str, file: str, budget: ParseBudget = DEFAULT_BUDGET) -> Document:
    """Parse one YAML document with positions; syntax errors raise `ParseError` at the spot.

    Within `budget`: aliases are counted at every use (an alias bomb stops at
    `max_nodes`), nesting stops at `max_depth`, integers at `max_int_digits`."""
    doc = Document(file, None, {(): (1, 1)})
    if len(text) > budget.max_file_bytes:
        raise BudgetError(f"over the {budget.max_file_bytes}-byte limit", file=file)
    if _max_flow_depth(text) > budget.max_depth:
        raise BudgetError(f"nesting deeper than {budget.max_depth} levels", file=file)
    try:
        node = _yaml().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "syntax error"
        if "duplicate key" in str(problem):
            problem = str(problem).split("\n")[0]
        line = mark.line + 1 if mark else None
        col = mark.column + 1 if mark else None
        raise ParseError(f"invalid YAML: {problem}", file=file, line=line, column=col) from None
    except YAMLError as exc:
        raise ParseError(f"invalid YAML: {log_line(exc, 200)}", file=file) from None
    except RecursionError:
        raise BudgetError("nesting too deep", file=file) from None
    except ValueError as exc:  # a scalar the constructor refuses (e.g. a huge integer)
        raise ParseError(f"invalid YAML: {log_line(exc, 200)}", file=file) from None
    try:
        doc.data = _plain(node, (), doc, _Spent(budget, file))
    except RecursionError:
        raise BudgetError("nesting too deep", file=file) from None
    except ValueError as exc:
        raise BudgetError(log_line(exc, 200), file=file) from None
    return doc


def _max_flow_depth(text: str) -> int:
    """Nesting of YAML flow collections and block indentation, estimated before parsing
    (ruamel's composer recurses once per level)."""
    deepest = depth = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif ch in "]}":
            depth = max(0, depth - 1)
    indent = max((len(ln) - len(ln.lstrip(" -")) for ln in text.splitlines()), default=0)
    return max(deepest, indent // 2)


# --------------------------------------------------------------------------- dispatch

YAML_SUFFIXES = {".yaml", ".yml"}
JSON_SUFFIXES = {".json"}
JSONL_SUFFIXES = {".jsonl", ".ndjson"}


def parse_text(text: str, file: str, budget: ParseBudget = DEFAULT_BUDGET) -> Document:
    """Pick the parser by file suffix; unknown suffixes are tried as JSON, then YAML.

    A `.json` file that is really JSON Lines (BFCL ships its function docs that way) is read as
    JSON Lines when the whole-file parse fails after the first line.
    """
    suffix = Path(file).suffix.lower()
    if suffix in YAML_SUFFIXES:
        return parse_yaml(text, file, budget)
    if suffix in JSONL_SUFFIXES:
        return parse_jsonl(text, file, budget)
    try:
        return parse_json(text, file, budget)
    except ParseError as exc:
        stripped = [ln for ln in text.splitlines() if ln.strip()]
        if suffix in JSON_SUFFIXES and len(stripped) > 1 and (exc.line or 0) > 1:
            try:
                return parse_jsonl(text, file, budget)
            except ParseError:
                pass
        if suffix not in JSON_SUFFIXES:
            return parse_yaml(text, file, budget)
        raise


def load_document(
    path: Path,
    display: str | None = None,
    *,
    root: Path | None = None,
    budget: ParseBudget = DEFAULT_BUDGET,
) -> Document:
    """Read and parse a file within `budget` (and inside `root` when given); `display` is
    the name used in errors (e.g. repo-relative)."""
    name = display or str(path)
    text = read_text(path, root=root, display=name, budget=budget)
    return parse_text(text, name, budget)

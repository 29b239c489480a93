"""One budget for everything parsed from files someone else wrote (PR files, contributions).

A pull request controls `.bfcl.yml`, tool files and case files; a contributor controls what
`bfcl-curate` reads. Each of them must be answered within seconds and a bounded amount of
memory, with an error naming the file (never a traceback, never the file's content beyond a
short escaped excerpt). The limits live in one `ParseBudget`; the functions here apply them
*before* the expensive step:

- `resolve_inside(path, root)`: the path, symlinks resolved, must stay inside `root`
  (the repository); `/etc/passwd`, `../../x` and links pointing out are errors.
- `check_pattern(pattern)`: a config glob is relative and has few `**` (the one glob
  expander, `bfcl_action.safety.globs.expand_globs`, calls it, never follows a directory symlink,
  so `tools/a -> ..` loops cannot be walked, resolves every match inside the repository and
  stops at `max_files_per_glob` files / `max_walk_entries` directory entries).
- `read_text(path, ...)`: size checked (`stat`) before reading, at most `max_file_bytes`
  read, UTF-8 errors reported with the file name.
- `check_value(value, ...)`: depth and node count of parsed data (YAML aliases count once per
  use, so an alias bomb fails here instead of expanding), integers capped in digits.
- `loads_json(text, ...)`: `json.loads` bounded the same way (deep nesting and huge integers
  are an `InputError`).
- `within_limits(raw, ...)`: the cheap check before both: from the raw text alone, whether a
  value parsed from it could break a `check_value` limit; when it cannot (almost every line
  of real data), the walk over the parsed value is skipped.
- `Expansion`: a counter for `$ref`/`$defs` inlining (tools/dialect.py) and any other
  expansion that can grow exponentially.

Parsers using it: `tools/source.py` (tool files, case YAML, `.bfcl.yml`), `tools/load.py`,
`cases/own.py`, `settings/config.py`; `curation/` calls the same functions for contributions.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any

from bfcl_action.core.errors import InputError
from bfcl_action.safety.escape import log_line


@dataclass(frozen=True)
class ParseBudget:
    """The limits; the defaults are far above any real tool, case or config file."""

    max_file_bytes: int = 8 * 1024 * 1024
    max_depth: int = 128
    """Nesting of JSON/YAML values (a 300-level schema is ~600 levels of values)."""
    max_nodes: int = 200_000
    """Values in one document after YAML aliases are expanded."""
    max_expansions: int = 100_000
    """Schema nodes produced by `$ref`/`$defs` inlining in one document."""
    max_int_digits: int = 1000
    max_files_per_glob: int = 5_000
    max_walk_entries: int = 200_000
    excerpt_chars: int = 60


DEFAULT_BUDGET = ParseBudget()


class BudgetError(InputError):
    """A file (or pattern) is over one of the `ParseBudget` limits, or leaves the repository."""


def excerpt(text: str, budget: ParseBudget = DEFAULT_BUDGET) -> str:
    """A short, escaped, one-line excerpt of untrusted content for an error message."""
    return repr(log_line(text[: budget.excerpt_chars * 2], budget.excerpt_chars))


# --------------------------------------------------------------------------- paths


def resolve_inside(path: Path, root: Path, *, display: str | None = None) -> Path:
    """`path` with every symlink resolved; a `BudgetError` unless it lies inside `root`."""
    name = display or str(path)
    real_root = Path(os.path.realpath(root))
    try:
        real = Path(os.path.realpath(path, strict=True))
    except OSError as exc:
        if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == 40:  # ELOOP
            raise BudgetError("symlink loop", file=name) from None
        raise InputError(f"cannot read file: {exc.strerror or exc}", file=name) from None
    except RuntimeError:
        raise BudgetError("symlink loop", file=name) from None
    if real != real_root and real_root not in real.parents:
        raise BudgetError(
            "path leaves the repository (symlinks resolved); only files inside "
            f"{real_root} are read",
            file=name,
        )
    return real


_MAX_DOUBLE_STARS = 4


def repository_root(start: Path) -> Path:
    """What "inside the repository" means for the paths a config names: the git work tree
    holding `start` (nearest parent with `.git`); outside git (a tarball, a build context)
    the working directory when it holds `start`, else `start` itself."""
    here = Path(os.path.realpath(start))
    for directory in [here, *here.parents]:
        if (directory / ".git").exists():
            return directory
    cwd = Path(os.path.realpath(Path.cwd()))
    if here == cwd or cwd in here.parents:
        return cwd
    return here


def check_pattern(pattern: str, *, field: str | None = None) -> None:
    """A config glob must be relative (where it leads is checked when it is expanded), short,
    with at most `_MAX_DOUBLE_STARS` `**` segments (each one multiplies the matching work)."""
    if len(pattern) > 1000 or pattern.replace("\\", "/").split("/").count("**") > _MAX_DOUBLE_STARS:
        raise BudgetError(
            f"pattern {excerpt(pattern)} is too long or has too many '**'", field=field
        )
    if pattern.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", pattern):
        raise BudgetError(
            f"absolute path {excerpt(pattern)}: paths are relative to the repository",
            field=field,
        )


# --------------------------------------------------------------------------- reading


def read_text(
    path: Path,
    *,
    root: Path | None = None,
    display: str | None = None,
    budget: ParseBudget = DEFAULT_BUDGET,
) -> str:
    """The file's UTF-8 text, its size checked before it is read (and its path inside
    `root` when given)."""
    name = display or str(path)
    target = resolve_inside(path, root, display=name) if root is not None else path
    try:
        info = os.stat(target)
        if not stat.S_ISREG(info.st_mode):
            raise BudgetError("not a regular file", file=name)
        if info.st_size > budget.max_file_bytes:
            raise BudgetError(
                f"file is {info.st_size} bytes, over the {budget.max_file_bytes}-byte limit",
                file=name,
            )
        with open(target, "rb") as fh:
            data = fh.read(budget.max_file_bytes + 1)
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", file=name) from None
    if len(data) > budget.max_file_bytes:
        raise BudgetError(f"file is over the {budget.max_file_bytes}-byte limit", file=name)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"file is not UTF-8 text (byte {exc.start})", file=name) from None


# --------------------------------------------------------------------------- values


def check_value(
    value: Any, *, file: str | None = None, budget: ParseBudget = DEFAULT_BUDGET
) -> None:
    """Depth, node count (shared YAML aliases count at every use) and integer size of
    parsed data; iterative, so 100k-deep input cannot exhaust the stack."""
    nodes = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    limit = 10**budget.max_int_digits
    while stack:
        item, depth = stack.pop()
        nodes += 1
        if nodes > budget.max_nodes:
            raise BudgetError(
                f"document has over {budget.max_nodes} values (YAML aliases expanded)", file=file
            )
        if depth > budget.max_depth:
            raise BudgetError(f"nesting deeper than {budget.max_depth} levels", file=file)
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list | tuple):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) >= limit:
            raise BudgetError(f"integer over {budget.max_int_digits} digits", file=file)


def loads_json(
    text: str | bytes,
    *,
    file: str | None = None,
    line: int | None = None,
    budget: ParseBudget = DEFAULT_BUDGET,
) -> Any:
    """`json.loads` within the budget: too deep, too many values or a huge integer is an
    `InputError` (with the file and line), never a `RecursionError` or `ValueError`."""
    raw = text
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"not UTF-8 text (byte {exc.start})", file=file, line=line) from None
    if len(text) > budget.max_file_bytes:
        raise BudgetError(f"over the {budget.max_file_bytes}-byte limit", file=file, line=line)
    cheap = within_limits(raw, budget)
    if not cheap and _max_bracket_depth(text) > budget.max_depth:
        raise BudgetError(f"nesting deeper than {budget.max_depth} levels", file=file, line=line)
    try:
        value = json.loads(text)
    except RecursionError:
        raise BudgetError("nesting too deep", file=file, line=line) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", file=file, line=line) from None
    except ValueError as exc:  # e.g. an integer over Python's digit limit
        raise BudgetError(f"invalid JSON: {log_line(exc, 120)}", file=file, line=line) from None
    if cheap:
        return value
    try:
        check_value(value, file=file, budget=budget)
    except BudgetError as exc:
        raise BudgetError(exc.message, file=file, line=line) from None
    return value


_NOT_COUNTED = bytes(b for b in range(256) if b not in b"0123456789[{")


def within_limits(raw: str | bytes, budget: ParseBudget = DEFAULT_BUDGET) -> bool:
    """Whether no value parsed from the JSON text `raw` can break a `check_value` limit, judged
    from the text alone, so the walk over the parsed value can be skipped. Sound bounds, not
    guesses: every value starts at a character of its own (values <= characters); a value
    lies at most one level deeper than the number of `[`/`{` in the text (so the C parser's
    recursion stays small too), and at most one level deeper than the brackets open around
    it, counted outside strings (`_nesting`, needed only when the count is over the limit);
    an integer of more than `max_int_digits` digits needs that many digit characters. One
    pass in C (`bytes.translate` keeps only digits and opening brackets; a text no longer than
    `max_int_digits` cannot hold too many digits, so only its brackets are counted); False for
    a long, deeply nested or digit-heavy text, which then gets the full walk."""
    if len(raw) > budget.max_nodes:
        return False
    data = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")
    if len(data) <= budget.max_int_digits:
        opens = data.count(b"[") + data.count(b"{")
    else:
        kept = data.translate(None, _NOT_COUNTED)
        opens = kept.count(b"[") + kept.count(b"{")
        if len(kept) - opens > budget.max_int_digits:
            return False
    return opens < budget.max_depth or _nesting(data) < budget.max_depth


_STRINGS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
"""A JSON string: to the first quote not escaped by a backslash (no newline after one)."""
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = [1 if b in b"[{" else -1 if b in b"]}" else 0 for b in range(256)]


def _nesting(data: bytes) -> int:
    """The most `[`/`{` open at once outside strings: strings cut out (by `split` when no
    backslash can escape a quote and every quote is closed, else by one regex pass), the
    brackets kept by `translate`, the running depth summed by `accumulate`, all in C."""
    if b"\\" in data or data.count(b'"') % 2:
        outside = _STRINGS.sub(b"", data)
    else:  # each quote closes the string the one before it opened
        outside = b"".join(data.split(b'"')[::2])
    brackets = outside.translate(None, _NOT_BRACKET)
    return max(0, max(accumulate(map(_STEP.__getitem__, brackets)), default=0))


def _max_bracket_depth(text: str) -> int:
    """Nesting of `[`/`{` outside strings (a cheap pre-check before the C parser recurses)."""
    if text.count("[") + text.count("{") < 64:
        return 0
    return _nesting(text.encode("utf-8", "surrogatepass"))


class Expansion:
    """A counter for one document's `$ref`/`$defs` inlining (or any growth)."""

    def __init__(self, budget: ParseBudget = DEFAULT_BUDGET) -> None:
        self.limit = budget.max_expansions
        self.count = 0

    def spend(self, amount: int = 1) -> bool:
        """Count `amount` more nodes; False once the budget is exhausted."""
        self.count += amount
        return self.count <= self.limit

"""The one glob rule: which files a pattern in `.bfcl.yml` or an Action input names.

The same pattern is matched against the working tree (`expand_globs`, `glob_files`) and
against paths committed at the merge-base (`matches_any`, used by `impact`); both sides must
answer alike, or a tool present on both sides looks added or removed. The rule, shell-like:

- Patterns are relative to a base directory, `/`-separated; `*`, `?` and `[...]` match within
  one path segment, `**` as a whole segment matches zero or more segments.
- A segment starting with `.` (a dotfile or dot-directory such as `.git`) is matched only by a
  pattern segment that starts with `.` too: `tools/*.json` never picks up
  `tools/.draft.json`, and `**` never descends into `.git`.
- Matching is case-sensitive.

Expanding a config's patterns (`expand_globs`) also keeps them inside the repository
(issue 16): an absolute pattern is an error, every match is resolved (symlinks included) and
must lie inside `root`, directory symlinks are never followed (`os.walk`), so a loop such as
`tools/a -> ..` cannot be walked forever, and the walk stops at the budget's file and entry
counts (`bfcl_action.safety.budget`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from fnmatch import fnmatchcase
from pathlib import Path

from bfcl_action.safety.budget import (
    DEFAULT_BUDGET,
    BudgetError,
    ParseBudget,
    check_pattern,
    excerpt,
    repository_root,
    resolve_inside,
)

_MAGIC = frozenset("*?[")


def _is_magic(segment: str) -> bool:
    return any(ch in segment for ch in _MAGIC)


def _segments(pattern: str) -> list[str]:
    return [s for s in pattern.replace("\\", "/").split("/") if s not in {"", "."}]


def _segment_matches(name: str, pattern: str) -> bool:
    if name.startswith(".") and not pattern.startswith("."):
        return False
    return fnmatchcase(name, pattern)


def _match(parts: Sequence[str], pats: Sequence[str]) -> bool:
    if not pats:
        return not parts
    head, rest = pats[0], pats[1:]
    if head == "**":
        if _match(parts, rest):
            return True
        return bool(parts) and not parts[0].startswith(".") and _match(parts[1:], pats)
    return bool(parts) and _segment_matches(parts[0], head) and _match(parts[1:], rest)


def glob_match(path: str, pattern: str) -> bool:
    """Whether a relative `/`-separated path is named by `pattern` (the rule above)."""
    return _match(_segments(path), _segments(pattern))


def matches_any(path: str, patterns: Sequence[str]) -> bool:
    return any(glob_match(path, p) for p in patterns)


def glob_files(pattern: str, base_dir: Path, budget: ParseBudget = DEFAULT_BUDGET) -> list[Path]:
    """Files under `base_dir` named by `pattern`, sorted; directories are never returned.

    Leading literal segments (`tools/`, `../shared/`, an absolute path) are joined to
    `base_dir` without matching, so patterns may point outside it; only the remaining
    segments are matched, and only as deep as they can reach.
    """
    segments = _segments(pattern)
    absolute = pattern.startswith("/")
    literal: list[str] = []
    while segments and not _is_magic(segments[0]):
        literal.append(segments.pop(0))
    root = Path("/" if absolute else base_dir, *literal)
    if not segments:
        return [root] if root.is_file() else []
    if not root.is_dir():
        return []
    unbounded = "**" in segments
    found: list[Path] = []
    entries = 0
    for current, dirs, files in os.walk(root):
        entries += len(dirs) + len(files)
        if entries > budget.max_walk_entries:
            raise BudgetError(
                f"pattern {excerpt(pattern)} walks over {budget.max_walk_entries} entries"
            )
        rel = Path(current).relative_to(root).parts
        if not unbounded and len(rel) >= len(segments) - 1:
            dirs[:] = []
        else:
            dirs[:] = [d for d in dirs if _could_descend((*rel, d), segments)]
        for name in files:
            if _match((*rel, name), segments):
                found.append(Path(current, name))
                if len(found) > budget.max_files_per_glob:
                    raise BudgetError(
                        f"pattern {excerpt(pattern)} matches over {budget.max_files_per_glob} files"
                    )
    return sorted(found)


def _could_descend(parts: Sequence[str], pats: Sequence[str]) -> bool:
    """Whether some path below the directory `parts` could still match `pats`."""
    if not pats:
        return False
    head, rest = pats[0], pats[1:]
    if head == "**":
        if _could_descend(parts, rest):
            return True
        return not parts[0].startswith(".") and (len(parts) == 1 or _could_descend(parts[1:], pats))
    if not _segment_matches(parts[0], head):
        return False
    return bool(rest) if len(parts) == 1 else _could_descend(parts[1:], rest)


def expand_globs(
    patterns: Sequence[str],
    base_dir: Path,
    exclude: Sequence[str] = (),
    *,
    root: Path | None = None,
    budget: ParseBudget = DEFAULT_BUDGET,
) -> tuple[list[Path], list[str]]:
    """Files matched by `patterns` (relative to `base_dir`), in pattern order, minus `exclude`.

    Returns the files and the patterns that matched nothing (usually a typo worth reporting).
    Raises `BudgetError` for an absolute pattern, a match that resolves outside `root`
    (default: the git work tree holding `base_dir`), or a pattern over the budget.
    """
    root = root if root is not None else repository_root(base_dir)
    for pattern in (*patterns, *exclude):
        check_pattern(pattern)
    excluded = {p.resolve() for pattern in exclude for p in glob_files(pattern, base_dir, budget)}
    files: list[Path] = []
    seen: set[Path] = set()
    unmatched: list[str] = []
    for pattern in patterns:
        matched = glob_files(pattern, base_dir, budget)
        if not matched:
            unmatched.append(pattern)
        for path in matched:
            real = resolve_inside(path, root, display=_shown(path, base_dir))
            if real not in excluded and real not in seen:
                seen.add(real)
                files.append(path)
    return files, unmatched


def _shown(path: Path, base_dir: Path) -> str:
    try:
        return path.relative_to(base_dir).as_posix()
    except ValueError:
        return path.name


__all__ = ["expand_globs", "glob_files", "glob_match", "matches_any"]

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
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from fnmatch import fnmatchcase
from pathlib import Path

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


def glob_files(pattern: str, base_dir: Path) -> list[Path]:
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
    for current, dirs, files in os.walk(root):
        rel = Path(current).relative_to(root).parts
        if not unbounded and len(rel) >= len(segments) - 1:
            dirs[:] = []
        else:
            dirs[:] = [d for d in dirs if _could_descend((*rel, d), segments)]
        for name in files:
            if _match((*rel, name), segments):
                found.append(Path(current, name))
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
    patterns: Sequence[str], base_dir: Path, exclude: Sequence[str] = ()
) -> tuple[list[Path], list[str]]:
    """Files matched by `patterns` (relative to `base_dir`), in pattern order, minus `exclude`.

    Returns the files and the patterns that matched nothing (usually a typo worth reporting).
    """
    excluded = {p.resolve() for pattern in exclude for p in glob_files(pattern, base_dir)}
    files: list[Path] = []
    unmatched: list[str] = []
    for pattern in patterns:
        matched = glob_files(pattern, base_dir)
        if not matched:
            unmatched.append(pattern)
        for path in matched:
            if path.resolve() not in excluded and path not in files:
                files.append(path)
    return files, unmatched


__all__ = ["expand_globs", "glob_files", "glob_match", "matches_any"]

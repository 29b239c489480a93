"""Where contributions come from besides files named on the command line: BFCL's own Live
sets, the repository's `contributions/` folder (git), and GitHub issue forms."""

from __future__ import annotations

from pathlib import Path

from bfcl_action.core.categories import LIVE_CATEGORIES
from bfcl_action.core.records import TestCase


def official_cases(spec: str) -> list[TestCase]:
    """Every official single-turn entry of a pinned BFCL version (`bfcl@2026.3.23`)."""
    from bfcl_action.dataset import load_dataset

    return load_dataset(spec)


def bfcl_live_cases(version: str) -> list[TestCase]:
    """BFCL's Live entries, to import as contributions (`--from-bfcl 2026.3.23`)."""
    from bfcl_action.dataset import load_dataset

    return load_dataset(f"bfcl@{version}", LIVE_CATEGORIES)


def contributions_since_release(
    repo_dir: Path, live_dir: Path, folder: str = "contributions"
) -> list[Path]:
    """Files under `contributions/` added since the commit that set the latest release.

    Without any release yet, every contribution file counts. Files added and then deleted
    do not.
    """
    import git

    repo = git.Repo(repo_dir, search_parent_directories=True)
    root = Path(repo.working_tree_dir or repo_dir)
    latest = live_dir / "LATEST"
    since = ""
    if latest.exists():
        rel = latest.resolve().relative_to(root.resolve()).as_posix()
        since = repo.git.log("-1", "--format=%H", "--", rel).strip()
    if since:
        out = repo.git.diff("--name-only", "--diff-filter=A", since, "HEAD", "--", folder)
    else:
        out = repo.git.ls_files("--", folder)
    return sorted(root / p for p in out.splitlines() if p.strip() and (root / p).is_file())

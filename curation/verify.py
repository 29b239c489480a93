"""`bfcl-curate verify`: releases are immutable and their checksums hold."""

from __future__ import annotations

from pathlib import Path

from curation.store import latest_version, verify_release


def verify_live_dir(live_dir: Path, *, check_history: bool = True) -> list[str]:
    """Every problem found: checksums of each release, LATEST pointing at a release, and
    (in a git checkout) no file of a release changed since the commit that added it."""
    problems: list[str] = []
    releases = live_dir / "releases"
    versions = sorted(p.name for p in releases.iterdir() if p.is_dir()) if releases.exists() else []
    for version in versions:
        problems.extend(verify_release(releases / version))
    latest = latest_version(live_dir)
    if versions and latest not in versions:
        problems.append(f"{live_dir / 'LATEST'}: names {latest!r}, not a release folder")
    if check_history and versions:
        problems.extend(_history_problems(live_dir, versions))
    return problems


def _history_problems(live_dir: Path, versions: list[str]) -> list[str]:
    import git

    try:
        repo = git.Repo(live_dir, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return []
    root = Path(repo.working_tree_dir or ".").resolve()
    problems = []
    for version in versions:
        folder = (live_dir / "releases" / version).resolve().relative_to(root).as_posix()
        added = repo.git.log("--diff-filter=A", "--format=%H", "--", f"{folder}/MANIFEST.json")
        commits = added.split()
        if not commits:
            continue  # not committed yet: a release being prepared
        first = commits[-1]
        changed = repo.git.diff("--name-only", first, "--", folder).split()
        changed += repo.git.ls_files("--others", "--exclude-standard", "--", folder).split()
        for path in sorted(set(changed)):
            problems.append(f"{path}: changed after release {version} (commit {first[:12]})")
    return problems

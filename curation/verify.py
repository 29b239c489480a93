"""`bfcl-curate verify`: releases are immutable, complete, and agree with the registry.

Checked: every release's checksums (nested `MANIFEST.json`/`SHA256SUMS` files are extra
files, not exempt); `LATEST` names the newest release (a rolled-back pointer is a problem);
every parent and every release the registry or the changelog names still exists (a deleted
older release is a problem); `registry.jsonl` matches the checksum the latest release
recorded and agrees with every release's ids and hashes; and, in a git checkout, no file of a
release changed, and no release was deleted, after the commit that added it.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from bfcl_action.core.errors import BfclActionError
from bfcl_action.safety.jsonl import read_jsonl
from curation.ids import Registry, bfcl_id, load_registry
from curation.store import latest_version, read_manifest, verify_release

_HEADING = re.compile(r"^## (\d{4}-W\d{2})\s*$", re.MULTILINE)


def verify_live_dir(live_dir: Path, *, check_history: bool = True) -> list[str]:
    """Every problem found, one line each, naming the file."""
    problems: list[str] = []
    releases = live_dir / "releases"
    versions = sorted(p.name for p in releases.iterdir() if p.is_dir()) if releases.exists() else []
    for version in versions:
        try:
            problems.extend(verify_release(releases / version))
        except BfclActionError as exc:
            problems.append(str(exc))
    latest = latest_version(live_dir)
    if versions and latest not in versions:
        problems.append(f"{live_dir / 'LATEST'}: names {latest!r}, not a release folder")
    elif versions and latest != versions[-1]:
        problems.append(
            f"{live_dir / 'LATEST'}: names {latest}, but the newest release is {versions[-1]} "
            "(rolled back?)"
        )
    problems.extend(_missing_releases(live_dir, versions))
    if versions and latest in versions:
        problems.extend(_registry_problems(live_dir, versions, latest))
    if check_history and versions:
        problems.extend(_history_problems(live_dir, versions))
    return problems


def _missing_releases(live_dir: Path, versions: list[str]) -> list[str]:
    present = set(versions)
    problems = []
    for version in versions:
        try:
            parent = read_manifest(live_dir / "releases" / version).parent
        except BfclActionError:
            continue
        if parent and parent not in present:
            problems.append(
                f"{live_dir / 'releases' / version / 'MANIFEST.json'}: parent {parent} is missing"
            )
    changelog = live_dir / "CHANGELOG.md"
    if changelog.exists():
        for version in _HEADING.findall(changelog.read_text(encoding="utf-8")):
            if version not in present:
                problems.append(f"{changelog}: lists release {version}, which is missing")
    return problems


def _registry_problems(live_dir: Path, versions: list[str], latest: str) -> list[str]:
    path = live_dir / "registry.jsonl"
    if not path.exists():
        return [f"{path}: missing"]
    try:
        registry = load_registry(path)
    except BfclActionError as exc:
        return [str(exc)]
    problems: list[str] = []
    manifest = read_manifest(live_dir / "releases" / latest)
    if manifest.registry_sha256:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != manifest.registry_sha256:
            problems.append(
                f"{path}: sha256 {digest} != {manifest.registry_sha256} recorded by {latest}"
            )
    problems.extend(_registry_agrees(path, registry, live_dir, versions, latest))
    return problems


def _release_hashes(release_dir: Path) -> dict[str, str]:
    hashes = {}
    path = release_dir / "provenance.jsonl"
    for _, row in read_jsonl(path.read_text(encoding="utf-8"), file=str(path)):
        hashes[str(row["id"])] = str(row.get("canonical_hash", ""))
    return hashes


def _registry_agrees(
    path: Path, registry: Registry, live_dir: Path, versions: list[str], latest: str
) -> list[str]:
    by_id = {}
    for e in registry.entries:
        for name in (e.id, *e.aliases):
            by_id[name] = e
    problems = []
    for e in registry.entries:
        if e.release not in versions:
            problems.append(f"{path}: {e.id} names release {e.release}, which is missing")
    for version in versions:
        try:
            hashes = _release_hashes(live_dir / "releases" / version)
        except (OSError, ValueError, KeyError) as exc:
            problems.append(f"{live_dir / 'releases' / version / 'provenance.jsonl'}: {exc}")
            continue
        for entry_id, digest in sorted(hashes.items()):
            entry = by_id.get(entry_id) or by_id.get(bfcl_id(entry_id))
            if entry is None:
                problems.append(f"{path}: {entry_id} of release {version} is not registered")
            elif digest and entry.canonical_hash != digest:
                problems.append(f"{path}: {entry_id} hash differs from release {version}")
            elif version == latest and entry.status != "active":
                problems.append(f"{path}: {entry_id} is a tombstone but in release {latest}")
        if version == latest:
            active = {bfcl_id(e.id) for e in registry.entries if e.status == "active"}
            for missing in sorted(active - {bfcl_id(i) for i in hashes}):
                problems.append(f"{path}: {missing} is active but not in release {latest}")
    return problems


def _history_problems(live_dir: Path, versions: list[str]) -> list[str]:
    import git

    try:
        repo = git.Repo(live_dir, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return []
    root = Path(repo.working_tree_dir or ".").resolve()
    problems = []
    releases = (live_dir / "releases").resolve().relative_to(root).as_posix()
    ever = repo.git.log("--diff-filter=A", "--name-only", "--format=", "--", releases).split()
    for committed in sorted({p for p in ever if p.endswith("/MANIFEST.json")}):
        parts = committed[len(releases) + 1 :].split("/")
        if len(parts) == 2 and parts[0] not in versions:
            problems.append(f"{committed}: release {parts[0]} was committed and is now deleted")
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

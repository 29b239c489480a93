"""Reading what is already under `data/live/`: the latest release's items, and checksums."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from bfcl_action.core.errors import InputError
from bfcl_action.core.records import FunctionDoc, Message
from bfcl_action.safety.jsonl import read_jsonl
from curation.models import Item, Origin
from curation.release import Manifest


def latest_version(live_dir: Path) -> str | None:
    path = live_dir / "LATEST"
    if not path.exists():
        return None
    version = path.read_text(encoding="utf-8").strip()
    return version or None


def read_manifest(release_dir: Path) -> Manifest:
    path = release_dir / "MANIFEST.json"
    try:
        return Manifest.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the release manifest: {exc}", file=str(path)) from None


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [row for _, row in read_jsonl(path.read_text(encoding="utf-8"), file=str(path))]


def read_release_items(release_dir: Path) -> list[Item]:
    """The items of a release, with ids, categories and provenance, as curation sees them."""
    manifest = read_manifest(release_dir)
    provenance = {str(r["id"]): r for r in _jsonl(release_dir / "provenance.jsonl")}
    items: list[Item] = []
    for category in manifest.categories:
        answers: dict[str, Any] = {}
        answer_path = release_dir / "possible_answer" / f"BFCL_v4_{category}.json"
        if answer_path.exists():
            answers = {str(r["id"]): r["ground_truth"] for r in _jsonl(answer_path)}
        for row in _jsonl(release_dir / f"BFCL_v4_{category}.json"):
            rid = str(row["id"])
            prov = provenance.get(rid, {})
            origin_kind, _, origin_ref = str(prov.get("origin", "release:" + rid)).partition(":")
            items.append(
                Item(
                    id=rid,
                    category=category,
                    origin=Origin(kind=origin_kind, ref=origin_ref),
                    question=[[Message.model_validate(m) for m in t] for t in row["question"]],
                    functions=[FunctionDoc.model_validate(f) for f in row["function"]],
                    possible_answer=answers.get(rid, []),
                    # a credit is already the published form; 2026-W49's unsalted hashes are
                    # not carried forward (they are reversible for a known handle)
                    contributor=str(prov.get("credit", "")),
                    publish_handle="credit" in prov,
                    license=str(prov.get("license", "")),
                    source=str(prov.get("source", "")),
                    edits=list(prov.get("edits", [])),
                    canonical_hash=str(prov.get("canonical_hash", "")),
                    interface_hash=str(prov.get("interface_hash", "")),
                )
            )
    return items


def verify_release(release_dir: Path) -> list[str]:
    """Problems with one release folder: checksum mismatches, missing or extra files."""
    problems: list[str] = []
    manifest = read_manifest(release_dir)
    listed = set(manifest.files)
    present = {
        p.relative_to(release_dir).as_posix() for p in release_dir.rglob("*") if p.is_file()
    } - {"MANIFEST.json", "SHA256SUMS"}
    for rel in sorted(listed - present):
        problems.append(f"{release_dir / rel}: listed in MANIFEST.json but missing")
    for rel in sorted(present - listed):
        problems.append(f"{release_dir / rel}: not listed in MANIFEST.json")
    for rel in sorted(listed & present):
        digest = hashlib.sha256((release_dir / rel).read_bytes()).hexdigest()
        if digest != manifest.files[rel]:
            problems.append(
                f"{release_dir / rel}: sha256 {digest} != manifest {manifest.files[rel]}"
            )
    sums = release_dir / "SHA256SUMS"
    if sums.exists():
        manifest_digest = hashlib.sha256((release_dir / "MANIFEST.json").read_bytes()).hexdigest()
        lines: dict[str, str] = {}
        for line in sums.read_text().splitlines():
            digest, sep, name = line.partition("  ")
            if sep:
                lines[name] = digest
        if lines.get("MANIFEST.json") != manifest_digest:
            problems.append(f"{sums}: MANIFEST.json checksum does not match")
    else:
        problems.append(f"{sums}: missing")
    return problems

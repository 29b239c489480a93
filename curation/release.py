"""Stage 7: the files of a Live release, computed as bytes (pure) and then written once.

Layout under `data/live/`:

    releases/<YYYY-Www>/BFCL_v4_<category>.json              entries (BFCL JSON Lines)
    releases/<YYYY-Www>/possible_answer/BFCL_v4_<category>.json   answers (AST categories)
    releases/<YYYY-Www>/provenance.jsonl   hashed contributor, license, source, edits, origin
    releases/<YYYY-Www>/MANIFEST.json      version, parent, counts, funnel, thresholds,
                                           library versions, sha256 of every file
    releases/<YYYY-Www>/SHA256SUMS         `sha256sum -c` compatible
    releases/<YYYY-Www>/README.md          dataset card (Hugging Face `datasets` configs)
    registry.jsonl, CHANGELOG.md, LATEST, curation.yml

Everything is sorted and serialised deterministically, so the same inputs give a
byte-identical release. Nothing in a release depends on the clock.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bfcl_action.categories import CATEGORIES, Checker
from bfcl_action.errors import InputError
from curation.models import Item, StageCount

MANIFEST_VERSION = 1


class Manifest(BaseModel):
    manifest_version: int = MANIFEST_VERSION
    version: str
    parent: str | None
    categories: dict[str, int]
    total: int
    added: int
    withdrawn: list[str]
    funnel: list[StageCount]
    settings: dict[str, Any]
    libraries: dict[str, str]
    files: dict[str, str]


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=False) + "\n" for r in rows).encode()


def contributor_hash(contributor: str) -> str:
    """Contributors are credited by a stable hash, never by a raw handle or address."""
    return hashlib.sha256(contributor.strip().casefold().encode()).hexdigest()[:16]


def library_versions() -> dict[str, str]:
    out = {}
    for lib in ("bfcl-action", "datasketch", "rapidfuzz"):
        try:
            out[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            out[lib] = "absent"
    return out


def dataset_card(version: str, counts: dict[str, int]) -> bytes:
    configs = "\n".join(
        f"- config_name: {c}\n  data_files:\n  - split: test\n    path: BFCL_v4_{c}.json"
        for c in sorted(counts)
    )
    rows = "\n".join(f"| {c} | {n} |" for c, n in sorted(counts.items()))
    text = f"""---
license: apache-2.0
pretty_name: bfcl-action Live {version}
task_categories:
- text-generation
tags:
- function-calling
- bfcl
configs:
{configs}
---

# bfcl-action Live {version}

User-contributed function-calling test entries in the format of the Berkeley Function
Calling Leaderboard (BFCL v4 Live categories). Each file is JSON Lines with `id`,
`question` (turns of chat messages) and `function` (function docs); possible answers for
the AST categories are under `possible_answer/`. Contributors are credited by hash in
`provenance.jsonl`; licenses are listed per entry there.

| category | entries |
| --- | --- |
{rows}

Load one category with `datasets.load_dataset("<path to this folder>", "live_simple")`.
"""
    return text.encode()


def release_files(
    items: list[Item],
    *,
    version: str,
    parent: str | None,
    added: int,
    withdrawn: list[str],
    funnel: list[StageCount],
    settings: dict[str, Any],
    libraries: dict[str, str],
) -> dict[str, bytes]:
    """Every file of the release folder, by relative path. `items` carry ids and categories."""
    ordered = sorted(items, key=lambda i: i.id)
    by_category: dict[str, list[Item]] = {}
    for item in ordered:
        by_category.setdefault(item.category, []).append(item)
    files: dict[str, bytes] = {}
    for category, members in sorted(by_category.items()):
        files[f"BFCL_v4_{category}.json"] = _jsonl(
            [
                {
                    "id": i.id,
                    "question": [[m.model_dump(mode="json") for m in t] for t in i.question],
                    "function": [f.model_dump(mode="json") for f in i.functions],
                }
                for i in members
            ]
        )
        if CATEGORIES[category].checker is Checker.AST:
            files[f"possible_answer/BFCL_v4_{category}.json"] = _jsonl(
                [{"id": i.id, "ground_truth": i.possible_answer} for i in members]
            )
    files["provenance.jsonl"] = _jsonl(
        [
            {
                "id": i.id,
                "contributor": contributor_hash(i.contributor),
                "license": i.license,
                "source": i.source,
                "origin": f"{i.origin.kind}:{i.origin.ref}",
                "edits": i.edits,
                "canonical_hash": i.canonical_hash,
                "interface_hash": i.interface_hash,
            }
            for i in ordered
        ]
    )
    counts = {c: len(m) for c, m in sorted(by_category.items())}
    files["README.md"] = dataset_card(version, counts)
    digests = {p: hashlib.sha256(b).hexdigest() for p, b in sorted(files.items())}
    manifest = Manifest(
        version=version,
        parent=parent,
        categories=counts,
        total=len(ordered),
        added=added,
        withdrawn=sorted(withdrawn),
        funnel=funnel,
        settings=settings,
        libraries=libraries,
        files=digests,
    )
    files["MANIFEST.json"] = (
        json.dumps(manifest.model_dump(), indent=2, sort_keys=True) + "\n"
    ).encode()
    digests["MANIFEST.json"] = hashlib.sha256(files["MANIFEST.json"]).hexdigest()
    files["SHA256SUMS"] = "".join(f"{d}  {p}\n" for p, d in sorted(digests.items())).encode()
    return files


def write_release(live_dir: Path, version: str, files: dict[str, bytes]) -> Path:
    """Write a release folder atomically (temp folder + rename); an existing one is immutable."""
    target = live_dir / "releases" / version
    if target.exists():
        raise InputError(
            f"release {version} already exists and releases are immutable; "
            "pick the next version or delete the unreleased folder",
            file=str(target),
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=target.parent))
    try:
        for rel, data in files.items():
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target

"""Stage 7: the files of a Live release, computed as bytes (pure) and then written once.

Layout under `data/live/`:

    releases/<YYYY-Www>/BFCL_v4_<category>.json              entries (BFCL JSON Lines)
    releases/<YYYY-Www>/possible_answer/BFCL_v4_<category>.json   answers (AST categories)
    releases/<YYYY-Www>/fresh/...                 entries new in this release, not imported
    releases/<YYYY-Www>/provenance.jsonl   origin class, credit, license, source, edits, origin
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
import hmac
import json
import os
import shutil
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bfcl_action.core.categories import CATEGORIES, Checker
from bfcl_action.core.errors import InputError
from curation.models import Item, StageCount, origin_class

MANIFEST_VERSION = 2
MIN_DATASETS_VERSION = "4.7.0"
"""Hugging Face `datasets` releases before this fail to load 5 of the 6 Live configs."""
SALT_ENV = "BFCL_CURATE_SALT"
"""A secret salt for contributor pseudonyms (a repository secret in the weekly workflow)."""


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
    origins: dict[str, int] = {}
    """Entries per origin class (contributed, imported-bfcl, generated)."""
    licenses: dict[str, int] = {}
    fresh: int = 0
    """Entries first published in this release and not imported (the `fresh` config)."""
    withdrawal_reasons: dict[str, str] = {}
    registry_sha256: str = ""
    """sha256 of `registry.jsonl` as written with this release; `verify` compares it."""


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=False) + "\n" for r in rows).encode()


def contributor_hash(contributor: str) -> str:
    """The unsalted hash release 2026-W49 used; kept only to read that release's files."""
    return hashlib.sha256(contributor.strip().casefold().encode()).hexdigest()[:16]


def credit(item: Item, salt: str | None) -> str:
    """Who is credited for an entry: BFCL for imports; the handle when its owner consented to
    publish it; else a pseudonym keyed by a secret salt (an unsalted hash of a known handle
    is reversed by hashing the handle); without a salt, `anonymous`."""
    if origin_class(item.origin) == "imported-bfcl":
        return "gorilla-llm/bfcl (upstream)"
    handle = item.contributor.strip()
    if item.publish_handle and handle:
        return handle
    if not salt or not handle:
        return "anonymous"
    digest = hmac.new(salt.encode(), handle.casefold().encode(), hashlib.sha256).hexdigest()
    return f"anon-{digest[:12]}"


def library_versions() -> dict[str, str]:
    out = {}
    for lib in ("bfcl-action", "datasketch", "rapidfuzz"):
        try:
            out[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            out[lib] = "absent"
    return out


def _table(rows: dict[str, int], head: str) -> str:
    lines = [f"| {head} | entries |", "| --- | ---: |"]
    lines += [f"| {k} | {n} |" for k, n in sorted(rows.items())]
    return "\n".join(lines)


def _spdx(licenses: dict[str, int]) -> str:
    """The card's `license:` value: one SPDX-style id, or `other` for a mix."""
    if len(licenses) == 1:
        return next(iter(licenses)).lower()
    return "other"


def dataset_card(
    version: str,
    counts: dict[str, int],
    *,
    origins: dict[str, int] | None = None,
    licenses: dict[str, int] | None = None,
    fresh: dict[str, int] | None = None,
    answered: list[str] | None = None,
) -> bytes:
    """The dataset card: configs for each category, the possible answers and the fresh
    entries; counts per origin and license, stated plainly."""
    origins = origins or {}
    licenses = licenses or {}
    fresh = fresh or {}
    answered = sorted(answered if answered is not None else counts)
    configs = [
        f"- config_name: {c}\n  data_files:\n  - split: test\n    path: BFCL_v4_{c}.json"
        for c in sorted(counts)
    ]
    if answered:
        paths = "\n".join(f"    - possible_answer/BFCL_v4_{c}.json" for c in answered)
        configs.append(
            f"- config_name: answers\n  data_files:\n  - split: test\n    path:\n{paths}"
        )
    if fresh:
        paths = "\n".join(f"    - fresh/BFCL_v4_{c}.json" for c in sorted(fresh))
        configs.append(f"- config_name: fresh\n  data_files:\n  - split: test\n    path:\n{paths}")
    config_names = [c.split("\n", 1)[0].removeprefix("- config_name: ") for c in configs]
    total = sum(counts.values())
    imported = origins.get("imported-bfcl", 0)
    share = f"{imported / total:.1%}" if total else "0%"
    fresh_text = (
        f"The `fresh` config holds the {sum(fresh.values())} entries first published in this "
        "release that are not imported; they were checked against the official BFCL sets and "
        "every earlier release (contamination and near-duplicate stages)."
        if fresh
        else "No entry is new in this release and not imported, so there is no `fresh` config; "
        "use the per-category configs as a reference set only."
    )
    text = f"""---
license: {_spdx(licenses)}
pretty_name: bfcl-action Live {version}
task_categories:
- text-generation
tags:
- function-calling
- bfcl
configs:
{chr(10).join(configs)}
---

# bfcl-action Live {version}

Function-calling test entries in the format of the Berkeley Function Calling Leaderboard
(BFCL v4 Live categories). Each file is JSON Lines with `id`, `question` (turns of chat
messages) and `function` (function docs); possible answers for the AST categories are under
`possible_answer/` (the `answers` config). Ids have BFCL's shape (`live_simple_00042`).

**Where the entries come from.** {imported} of {total} entries ({share}) are imported from
BFCL's own published Live sets (bfcl-eval, Apache-2.0): they were public before this release
and may be in model training data. The rest are contributed (or generated), as counted below.
{fresh_text}

{_table(origins, "origin")}

{_table(counts, "category")}

**Licenses.** Each entry's license is in `provenance.jsonl` (field `license`), with its
origin, credit and every edit curation made. Summary:

{_table(licenses, "license")}

Contributors are credited by the handle they agreed to publish, otherwise by a salted
pseudonym (`anon-...`) or `anonymous`.

Load with `datasets>={MIN_DATASETS_VERSION}` (earlier versions fail on most configs):
`datasets.load_dataset("<path to this folder>", "live_simple")`; the other configs are
{", ".join(f"`{c}`" for c in config_names if c != "live_simple")}.
"""
    return text.encode()


def release_files(
    items: list[Item],
    *,
    version: str,
    parent: str | None,
    added: int,
    withdrawn: dict[str, str] | list[str],
    funnel: list[StageCount],
    settings: dict[str, Any],
    libraries: dict[str, str],
    fresh_ids: set[str] | None = None,
    aliases: dict[str, list[str]] | None = None,
    salt: str | None = None,
    registry_sha256: str = "",
) -> dict[str, bytes]:
    """Every file of the release folder, by relative path. `items` carry ids and categories."""
    reasons = dict(withdrawn) if isinstance(withdrawn, dict) else {w: "" for w in withdrawn}
    fresh_ids = fresh_ids or set()
    aliases = aliases or {}
    ordered = sorted(items, key=lambda i: i.id)
    by_category: dict[str, list[Item]] = {}
    for item in ordered:
        by_category.setdefault(item.category, []).append(item)

    def entries(members: list[Item]) -> bytes:
        return _jsonl(
            [
                {
                    "id": i.id,
                    "question": [[m.model_dump(mode="json") for m in t] for t in i.question],
                    "function": [f.model_dump(mode="json") for f in i.functions],
                }
                for i in members
            ]
        )

    def answers(members: list[Item]) -> bytes:
        return _jsonl([{"id": i.id, "ground_truth": i.possible_answer} for i in members])

    files: dict[str, bytes] = {}
    answered: list[str] = []
    fresh_counts: dict[str, int] = {}
    for category, members in sorted(by_category.items()):
        files[f"BFCL_v4_{category}.json"] = entries(members)
        is_ast = CATEGORIES[category].checker is Checker.AST
        if is_ast:
            answered.append(category)
            files[f"possible_answer/BFCL_v4_{category}.json"] = answers(members)
        new = [i for i in members if i.id in fresh_ids]
        if new:
            fresh_counts[category] = len(new)
            files[f"fresh/BFCL_v4_{category}.json"] = entries(new)
            if is_ast:
                files[f"fresh/possible_answer/BFCL_v4_{category}.json"] = answers(new)
    files["provenance.jsonl"] = _jsonl(
        [
            {
                "id": i.id,
                **({"aliases": aliases[i.id]} if aliases.get(i.id) else {}),
                "origin_class": origin_class(i.origin),
                "credit": credit(i, salt),
                "license": i.license,
                "source": i.source,
                "origin": f"{i.origin.kind}:{i.origin.ref}",
                "fresh": i.id in fresh_ids,
                "edits": i.edits,
                "canonical_hash": i.canonical_hash,
                "interface_hash": i.interface_hash,
            }
            for i in ordered
        ]
    )
    counts = {c: len(m) for c, m in sorted(by_category.items())}
    origins: dict[str, int] = {}
    licenses: dict[str, int] = {}
    for i in ordered:
        origins[origin_class(i.origin)] = origins.get(origin_class(i.origin), 0) + 1
        licenses[i.license] = licenses.get(i.license, 0) + 1
    files["README.md"] = dataset_card(
        version,
        counts,
        origins=origins,
        licenses=dict(sorted(licenses.items())),
        fresh=fresh_counts,
        answered=answered,
    )
    digests = {p: hashlib.sha256(b).hexdigest() for p, b in sorted(files.items())}
    manifest = Manifest(
        version=version,
        parent=parent,
        categories=counts,
        total=len(ordered),
        added=added,
        withdrawn=sorted(reasons),
        funnel=funnel,
        settings=settings,
        libraries=libraries,
        files=digests,
        origins=dict(sorted(origins.items())),
        licenses=dict(sorted(licenses.items())),
        fresh=sum(fresh_counts.values()),
        withdrawal_reasons=dict(sorted(reasons.items())),
        registry_sha256=registry_sha256,
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

"""Stage 6b: stable ids. An id, once released, names the same test forever.

The registry (`data/live/registry.jsonl`, one line per id ever assigned) maps ids to the
canonical hash of their item. An item seen before keeps its id; a new one gets the next
number of its category; a withdrawn one stays in the registry as a tombstone, so its id is
never handed out again.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from bfcl_action.errors import InputError
from bfcl_action.jsonl import read_jsonl


class RegistryEntry(BaseModel):
    id: str
    canonical_hash: str
    category: str
    release: str
    status: str = "active"
    """`active` or `tombstone`."""
    reason: str = ""


class Registry(BaseModel):
    entries: list[RegistryEntry] = []

    def by_hash(self) -> dict[str, RegistryEntry]:
        return {e.canonical_hash: e for e in self.entries}

    def by_id(self) -> dict[str, RegistryEntry]:
        return {e.id: e for e in self.entries}

    def next_number(self, category: str) -> int:
        prefix = f"{category}-"
        numbers = [int(e.id[len(prefix) :]) for e in self.entries if e.id.startswith(prefix)]
        return max(numbers, default=-1) + 1


def load_registry(path: Path) -> Registry:
    if not path.exists():
        return Registry()
    entries = []
    for n, row in read_jsonl(path.read_text(encoding="utf-8"), file=str(path)):
        try:
            entries.append(RegistryEntry.model_validate(row))
        except ValueError as exc:
            raise InputError(f"bad registry line: {exc}", file=str(path), line=n) from None
    return Registry(entries=entries)


def dump_registry(registry: Registry) -> str:
    return "".join(
        json.dumps(e.model_dump(), sort_keys=True, ensure_ascii=False) + "\n"
        for e in registry.entries
    )


def assign_ids(
    hashes_by_category: list[tuple[str, str]], registry: Registry, release: str
) -> tuple[list[str], Registry]:
    """Ids for (category, canonical_hash) pairs, in the given order, and the new registry.

    The caller passes items sorted deterministically, so the same inputs get the same ids.
    """
    known = registry.by_hash()
    entries = list(registry.entries)
    counters: dict[str, int] = {}
    ids: list[str] = []
    for category, digest in hashes_by_category:
        entry = known.get(digest)
        if entry is not None and entry.status == "active":
            ids.append(entry.id)
            continue
        if category not in counters:
            counters[category] = Registry(entries=entries).next_number(category)
        new_id = f"{category}-{counters[category]:05d}"
        counters[category] += 1
        new = RegistryEntry(id=new_id, canonical_hash=digest, category=category, release=release)
        entries.append(new)
        known[digest] = new
        ids.append(new_id)
    return ids, Registry(entries=entries)


def withdraw(registry: Registry, ids: dict[str, str]) -> Registry:
    """Tombstone the given ids (id -> reason); unknown ids are an error."""
    by_id = registry.by_id()
    missing = sorted(set(ids) - set(by_id))
    if missing:
        raise InputError(f"cannot withdraw unknown ids: {', '.join(missing)}", field="withdraw")
    entries = [
        e.model_copy(update={"status": "tombstone", "reason": ids[e.id]}) if e.id in ids else e
        for e in registry.entries
    ]
    return Registry(entries=entries)

"""Stage 6b: stable ids. An id, once released, names the same test forever.

The registry (`data/live/registry.jsonl`, one line per id ever assigned) maps ids to the
canonical hash of their item. An item seen before keeps its id; a new one gets the next
number of its category; a withdrawn one stays in the registry as a tombstone, so its id is
never handed out again.

Ids have BFCL's shape, `<category>_<index>` (`live_simple_00042`): BFCL's tools read the
category as everything before the last `_` and sort by the integer after it. Release
2026-W49 used `live_simple-00042`, which BFCL reads as category `live` and cannot sort; those
ids were renamed once (same number) and the old spelling is kept as an alias.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel

from bfcl_action.core.errors import InputError
from bfcl_action.safety.jsonl import read_jsonl


class RegistryEntry(BaseModel):
    id: str
    canonical_hash: str
    category: str
    release: str
    status: str = "active"
    """`active` or `tombstone`."""
    reason: str = ""
    aliases: list[str] = []
    """Earlier spellings of this id (the 2026-W49 `live_simple-00042` form)."""
    superseded_by: str = ""
    """For a tombstone replaced by a corrected entry: the new id."""


class Registry(BaseModel):
    entries: list[RegistryEntry] = []

    def by_hash(self) -> dict[str, RegistryEntry]:
        return {e.canonical_hash: e for e in self.entries}

    def by_id(self) -> dict[str, RegistryEntry]:
        return {e.id: e for e in self.entries}

    def next_number(self, category: str) -> int:
        numbers = [
            number
            for e in self.entries
            for i in (e.id, *e.aliases)
            if (number := _number(i, category)) is not None
        ]
        return max(numbers, default=-1) + 1


_OLD_ID = re.compile(r"^(live_[a-z_]+)-(\d+)$")


def _number(entry_id: str, category: str) -> int | None:
    for sep in ("_", "-"):
        prefix = f"{category}{sep}"
        if entry_id.startswith(prefix) and entry_id[len(prefix) :].isdigit():
            return int(entry_id[len(prefix) :])
    return None


def make_id(category: str, number: int) -> str:
    """BFCL's id shape: the category, `_`, a zero-padded index."""
    return f"{category}_{number:05d}"


def bfcl_id(entry_id: str) -> str:
    """The BFCL-shaped spelling of an id (`live_simple-00042` -> `live_simple_00042`)."""
    match = _OLD_ID.match(entry_id)
    return f"{match.group(1)}_{match.group(2)}" if match else entry_id


def migrate_ids(registry: Registry) -> Registry:
    """Rename 2026-W49-style ids to BFCL's shape, keeping the old spelling as an alias."""
    entries = []
    for e in registry.entries:
        new = bfcl_id(e.id)
        if new != e.id:
            e = e.model_copy(update={"id": new, "aliases": sorted({*e.aliases, e.id})})
        entries.append(e)
    return Registry(entries=entries)


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
    """One sorted-key JSON line per entry; empty aliases / superseded_by are left out."""
    lines = []
    for e in registry.entries:
        row = e.model_dump()
        for key in ("aliases", "superseded_by"):
            if not row[key]:
                del row[key]
        lines.append(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
    return "".join(lines)


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
        new_id = make_id(category, counters[category])
        counters[category] += 1
        new = RegistryEntry(id=new_id, canonical_hash=digest, category=category, release=release)
        entries.append(new)
        known[digest] = new
        ids.append(new_id)
    return ids, Registry(entries=entries)


def withdraw(
    registry: Registry, ids: dict[str, str], superseded_by: dict[str, str] | None = None
) -> Registry:
    """Tombstone the given ids (id -> reason; an old `live_simple-00042` spelling works);
    unknown ids are an error."""
    ids = {bfcl_id(k): v for k, v in ids.items()}
    superseded_by = superseded_by or {}
    by_id = registry.by_id()
    missing = sorted(set(ids) - set(by_id))
    if missing:
        raise InputError(f"cannot withdraw unknown ids: {', '.join(missing)}", field="withdraw")
    entries = [
        e.model_copy(
            update={
                "status": "tombstone",
                "reason": ids[e.id],
                "superseded_by": superseded_by.get(e.id, ""),
            }
        )
        if e.id in ids
        else e
        for e in registry.entries
    ]
    return Registry(entries=entries)

"""Which cases a run evaluates: categories, an id pattern, a seeded sample, a shard.

Every choice depends only on case ids and the seed, never on input order or the machine, so
shards of one run partition the same sample on every CI runner and a rerun picks the same
cases.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from bfcl_action.core.categories import expand_categories
from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import TestCase


def _rank(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def parse_shard(spec: str) -> tuple[int, int]:
    """`"i/n"` with 1 <= i <= n, as `(i, n)`."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", spec)
    if not match:
        raise ConfigError(f"expected a shard as i/n (e.g. 1/4), found {spec!r}", field="shard")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ConfigError(f"shard index must be in 1..{count}, found {spec!r}", field="shard")
    return index, count


def shard_of(case_id: str, count: int) -> int:
    """The 1-based shard a case id belongs to among `count` shards (stable hash)."""
    return _rank("shard\0" + case_id) % count + 1


def select_cases(
    cases: Sequence[TestCase],
    *,
    categories: Sequence[str] | None = None,
    id_pattern: str | None = None,
    sample: int | None = None,
    seed: int = 0,
    shard: str | None = None,
) -> list[TestCase]:
    """Filter by category, suite label or group, by id regex (searched), sample, then shard.

    The sample takes the `sample` cases with the smallest seeded hash of their id; the shard
    keeps the cases whose id hashes to it. Sampling happens before sharding, so the shards of
    a sampled run are a partition of that sample. Input order is kept.
    """
    chosen = list(cases)
    if categories:
        chosen = select_categories(chosen, categories)
    if id_pattern:
        try:
            regex = re.compile(id_pattern)
        except re.error as exc:
            raise ConfigError(f"invalid id pattern {id_pattern!r}: {exc}", field="ids") from None
        chosen = [c for c in chosen if regex.search(c.id)]
    if sample is not None:
        if sample < 0:
            raise ConfigError(f"sample must be >= 0, found {sample}", field="sample")
        if sample < len(chosen):
            ranked = sorted(chosen, key=lambda c: (_rank(f"{seed}\0{c.id}"), c.id))
            keep = {id(c) for c in ranked[:sample]}
            chosen = [c for c in chosen if id(c) in keep]
    if shard:
        index, count = parse_shard(shard)
        chosen = [c for c in chosen if shard_of(c.id, count) == index]
    return chosen


def select_categories(cases: Sequence[TestCase], names: Sequence[str]) -> list[TestCase]:
    """The cases of the named categories, suite labels and groups (`own`, `live`, ...), in
    input order.

    Never drops a name silently: an unknown name is an error with a did-you-mean, and a name
    that selects none of `cases` is an error listing the suites that are there.
    """
    picked: set[int] = set()
    for name in (n.strip() for n in names):
        if not name:
            continue
        wanted = set(expand_categories([name]))
        hits = [id(c) for c in cases if c.category in wanted or c.label() in wanted]
        if not hits and name != "all":
            present = sorted({c.label() for c in cases})
            raise ConfigError(
                f"category {name!r} selects no case; the cases here are in: "
                + (", ".join(present) or "(none)"),
                field="categories",
            )
        picked.update(hits)
    return [c for c in cases if id(c) in picked]

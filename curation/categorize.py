"""Stage 6a: the Live category of an item, from what it offers and expects (BFCL's rules)."""

from __future__ import annotations

from curation.models import Item

LIVE_CATEGORIES = (
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
    "live_relevance",
)


def categorize(item: Item) -> str:
    """No call expected: irrelevance. One call: simple with one function offered, else
    multiple. Several calls: parallel with one function offered, else parallel_multiple.
    `live_relevance` is only ever what the contributor asked for (any call passes); entries
    imported from BFCL keep their upstream category."""
    if item.requested_category in LIVE_CATEGORIES:
        return item.requested_category
    calls = len(item.possible_answer)
    offered = len(item.functions)
    if calls == 0:
        return "live_irrelevance"
    if calls == 1:
        return "live_simple" if offered == 1 else "live_multiple"
    return "live_parallel" if offered == 1 else "live_parallel_multiple"

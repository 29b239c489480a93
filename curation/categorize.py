"""Stage 6a: the Live category of an item, from what it offers and expects (BFCL's rules)."""

from __future__ import annotations

from bfcl_action.cases.authoring import call_shape
from bfcl_action.core.categories import LIVE_CATEGORIES
from curation.models import Item


def categorize(item: Item) -> str:
    """`live_` + the shape own cases get too (`bfcl_action.cases.authoring.call_shape`).

    `live_relevance` is only ever what the contributor asked for (any call passes); entries
    imported from BFCL keep their upstream category."""
    if item.requested_category in LIVE_CATEGORIES:
        return item.requested_category
    return "live_" + call_shape(len(item.functions), len(item.possible_answer))

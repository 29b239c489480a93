"""Live ids round-trip through bfcl-eval's own id handling (category from id, sort)."""

from pathlib import Path

import pytest

pytest.importorskip("bfcl_eval")

LIVE = Path(__file__).resolve().parents[2] / "data" / "live"


@pytest.mark.conformance
def test_latest_live_ids_give_their_category_and_sort_in_bfcl_eval() -> None:
    from bfcl_eval.utils import extract_test_category_from_id, sort_key  # type: ignore[import-not-found]

    from curation.store import latest_version, read_release_items

    version = latest_version(LIVE)
    assert version is not None
    items = read_release_items(LIVE / "releases" / version)
    assert items
    for item in items:
        assert extract_test_category_from_id(item.id) == item.category, item.id
    entries = [{"id": i.id} for i in items]
    ordered = sorted(entries, key=sort_key)
    assert len(ordered) == len(entries)

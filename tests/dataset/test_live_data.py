"""The released Live sets in this repository: intact, immutable, and loadable by the runner."""

import json
from pathlib import Path

from bfcl_action.dataset import load_dataset
from curation.verify import verify_live_dir

LIVE = Path(__file__).resolve().parents[1].parent / "data" / "live"


def test_every_release_verifies_and_none_changed_since_it_was_committed() -> None:
    assert verify_live_dir(LIVE) == []


def test_the_latest_release_loads_with_the_manifest_counts() -> None:
    version = (LIVE / "LATEST").read_text().strip()
    manifest = json.loads((LIVE / "releases" / version / "MANIFEST.json").read_text())
    cases = load_dataset("live@latest", live_dir=LIVE)
    counts: dict[str, int] = {}
    for case in cases:
        counts[case.category] = counts.get(case.category, 0) + 1
    assert counts == manifest["categories"]
    assert {c.dataset for c in cases} == {f"live@{version}"}


def test_the_first_release_rejected_the_known_unpassable_upstream_entries() -> None:
    report = json.loads((LIVE / "reports" / "2026-W49.json").read_text())
    rejected = {d["origin"]["ref"] for d in report["drops"] if d["stage"] == "validate"}
    known = {
        "live_simple_106-63-0",
        "live_simple_112-68-0",
        "live_multiple_964-207-0",
        "live_multiple_862-181-3",
    }
    assert known <= rejected

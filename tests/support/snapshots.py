"""Snapshot files for rendered output; set BFCL_UPDATE_SNAPSHOTS=1 to (re)write them."""

from __future__ import annotations

import os
from pathlib import Path

UPDATE_ENV = "BFCL_UPDATE_SNAPSHOTS"
SNAPSHOTS = Path(__file__).resolve().parents[1] / "fixtures" / "compare" / "snapshots"
"""The comparison's rendered snapshots (comments, summaries, first lines)."""


def assert_snapshot(path: Path, text: str) -> None:
    """Equal to the stored snapshot, or (re)written when `BFCL_UPDATE_SNAPSHOTS=1`."""
    if os.environ.get(UPDATE_ENV) == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    if not path.exists():
        raise AssertionError(f"missing snapshot {path}; run with {UPDATE_ENV}=1 to create it")
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{path} differs; review, then run with {UPDATE_ENV}=1 to accept"

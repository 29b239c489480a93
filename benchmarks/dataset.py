"""How long official BFCL data takes to load: first use (fetch + verify + extract) and
every later use (cache read), for all 13 single-turn categories."""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bfcl_action.dataset import load_dataset

SPEC = "bfcl@2026.3.23"


def main() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as cache:
        os.environ["BFCL_ACTION_CACHE"] = cache
        start = time.perf_counter()
        cases = load_dataset(SPEC)
        first = time.perf_counter() - start
        warm = []
        for _ in range(5):
            start = time.perf_counter()
            load_dataset(SPEC)
            warm.append(time.perf_counter() - start)
    figures = {
        "cases": len(cases),
        "first_load_s": round(first, 3),
        "cached_load_median_s": round(statistics.median(warm), 3),
        "cached_load_max_s": round(max(warm), 3),
    }
    out = Path("bench-results")
    out.mkdir(exist_ok=True)
    (out / "dataset.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
    return figures

"""Digest size and comparison/rendering time for a 5,000-case run with many flips."""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bfcl_action.compare.runs import compare_runs
from bfcl_action.report import render_comment, render_junit, render_summary
from bfcl_action.results.digest import make_digest, parse_digest
from tests.support.reports import make_report

SUITES = ["simple_python", "multiple", "parallel", "live_simple", "live_multiple"]
CASES = 5000


def _time(fn: Callable[[], object], repeat: int = 3) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return round(statistics.median(runs), 4)


def main() -> dict[str, Any]:
    rng = random.Random(0)  # noqa: S311 -- synthetic outcomes, not security
    per = CASES // len(SUITES)
    base = make_report({s: "".join(rng.choice("1110") for _ in range(per)) for s in SUITES})
    head = make_report({s: "".join(rng.choice("110e") for _ in range(per)) for s in SUITES})
    digest = make_digest(base)
    comparison = compare_runs(base, head)
    figures = {
        "cases": CASES,
        "digest_chars": len(digest),
        "digest_chars_per_case": round(len(digest) / CASES, 3),
        "flipped_cases": len(comparison.flipped),
        "make_digest_s": _time(lambda: make_digest(base)),
        "parse_digest_s": _time(lambda: parse_digest(digest)),
        "compare_report_s": _time(lambda: compare_runs(base, head)),
        "compare_digest_s": _time(lambda: compare_runs(parse_digest(digest), head)),
        "render_comment_s": _time(lambda: render_comment(comparison)),
        "comment_chars": len(render_comment(comparison)),
        "render_summary_s": _time(lambda: render_summary(comparison), repeat=1),
        "summary_bytes": len(render_summary(comparison).encode("utf-8")),
        "render_junit_s": _time(lambda: render_junit(head)),
    }
    out = Path("bench-results")
    out.mkdir(exist_ok=True)
    (out / "compare.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
    return figures

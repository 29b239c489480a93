"""Curation benchmark: the full `build` on synthetic contributions with planted exact and
near-duplicates and secrets; time at 10k and 100k, and near-duplicate recall/precision."""

from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks._hostile import hostile_contributions, valid_contributions
from benchmarks._synthetic import Planted, generate
from curation.build import build, gather
from curation.canonical import answer_key, function_text, similarity_text
from curation.dedup import Fingerprint, near_duplicate_groups
from curation.neardup import Signer
from curation.settings import CurationSettings

RESULTS = Path("bench-results")


def _components(n: int, pairs: list[tuple[int, int]]) -> list[int]:
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        parent[find(a)] = find(b)
    return [find(i) for i in range(n)]


def near_dup_quality(rows: list[dict[str, Any]], planted: Planted) -> dict[str, float]:
    """Recall: planted near-copies grouped with their source. Precision: grouped pairs that
    are truly one test (linked by planted copies, exact or near)."""
    intake = gather_rows(rows)
    prints = [
        Fingerprint(str(i), function_text(it.functions), similarity_text(it), answer_key(it))
        for i, it in enumerate(intake)
    ]
    groups = near_duplicate_groups(prints, Signer(CurationSettings().near_duplicates.settings()))
    group_of = {}
    for g, members in enumerate(groups):
        for m in members:
            group_of[m] = g
    truth = _components(len(rows), planted.exact + planted.near)
    found = sum(1 for a, b in planted.near if group_of[a] == group_of[b])
    grouped_pairs = 0
    true_pairs = 0
    for members in groups:
        by_truth: dict[int, int] = defaultdict(int)
        for m in members:
            by_truth[truth[m]] += 1
        k = len(members)
        grouped_pairs += k * (k - 1) // 2
        true_pairs += sum(c * (c - 1) // 2 for c in by_truth.values())
    return {
        "planted_near_pairs": len(planted.near),
        "recall": found / len(planted.near) if planted.near else 1.0,
        "precision": true_pairs / grouped_pairs if grouped_pairs else 1.0,
    }


def gather_rows(rows: list[dict[str, Any]]) -> list[Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return gather([path]).items


def run_build(n: int) -> dict[str, Any]:
    rows, planted = generate(n)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "contributions.jsonl"
        src.write_text("".join(json.dumps(r) + "\n" for r in rows))
        start = time.perf_counter()
        intake = gather([src])
        report = build(
            live_dir=Path(tmp) / "live",
            items=intake.items,
            intake_drops=intake.drops,
            references=[],
            version="2026-W48",
        )
        seconds = time.perf_counter() - start
    drops: dict[str, int] = defaultdict(int)
    for d in report.drops:
        drops[d.reason] += 1
    return {
        "contributions": n,
        "seconds": round(seconds, 2),
        "per_item_ms": round(seconds / n * 1000, 3),
        "released": report.added,
        "drops": dict(sorted(drops.items())),
        "scrubbed": report.scrubbed,
        "planted": {
            "exact": len(planted.exact),
            "near": len(planted.near),
            "secrets": len(planted.secrets),
        },
    }


def run_hostile(n_valid: int = 2_000) -> dict[str, Any]:
    """Hostile contributions mixed into valid ones: time of the whole build, the process's
    peak RSS after it (it runs first, so that is its own peak, imports included), and
    whether every valid one was released and every hostile one rejected."""
    import random

    rows = valid_contributions(n_valid) + hostile_contributions()
    random.Random(5).shuffle(rows)  # noqa: S311 (a reproducible order, not a secret)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "mixed.jsonl"
        src.write_text("".join(json.dumps(r) + "\n" for r in rows))
        start = time.perf_counter()
        intake = gather([src], workers=1)
        report = build(
            live_dir=Path(tmp) / "live",
            items=intake.items,
            intake_drops=intake.drops,
            references=[],
            version="2026-W50",
        )
        seconds = time.perf_counter() - start
    reasons = {d.origin.ref: f"{d.reason}: {d.detail[:80]}" for d in report.drops}
    return {
        "valid": n_valid,
        "hostile": len(hostile_contributions()),
        "released": report.added,
        "all_valid_released": report.added == n_valid,
        "all_hostile_rejected": len(report.drops) == len(hostile_contributions()),
        "rejections": sorted(reasons.values()),
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main(sizes: tuple[int, ...] = (10_000, 100_000)) -> dict[str, Any]:
    hostile = run_hostile()
    runs = [run_build(n) for n in sizes]
    rows, planted = generate(20_000, seed=11)
    quality = near_dup_quality(rows, planted)
    small, large = runs[0], runs[-1]
    result = {
        "runs": runs,
        "scaling_ratio": round(
            (large["seconds"] / small["seconds"])
            / (large["contributions"] / small["contributions"]),
            3,
        ),
        "near_duplicates": quality,
        "hostile": hostile,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "targets": {"seconds_100k": 120, "recall": 0.95, "precision": 0.99},
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "curation.json").write_text(json.dumps(result, indent=2) + "\n")
    for run in runs:
        print(
            f"curation: {run['contributions']:>7} contributions in {run['seconds']:7.2f} s "
            f"({run['per_item_ms']} ms/item), released {run['released']}"
        )
    print(f"curation: scaling (time ratio / size ratio) {result['scaling_ratio']} (1.0 = linear)")
    print(
        f"curation: near-duplicate recall {quality['recall']:.4f}, "
        f"precision {quality['precision']:.4f} on {quality['planted_near_pairs']} planted pairs"
    )
    print(f"curation: peak RSS {result['peak_rss_mb']} MB")
    print(
        f"curation: hostile mix: {hostile['hostile']} hostile + {hostile['valid']} valid in "
        f"{hostile['seconds']} s, peak RSS {hostile['peak_rss_mb']} MB; every valid "
        f"released: {hostile['all_valid_released']}, every hostile rejected: "
        f"{hostile['all_hostile_rejected']}"
    )
    for reason in hostile["rejections"]:
        print(f"curation:   rejected {reason}")
    return result


if __name__ == "__main__":
    sizes = tuple(int(a) for a in sys.argv[1:]) or (10_000, 100_000)
    main(sizes)

"""The Batch API path's client overhead against the real-time path (issue 19).

Both paths ask the same cases of the local OpenAI-compatible server in its own process (so
its CPU is not the client's): real time through the request path, and by a batch (upload,
create, poll, download, parse into the cache, then the run reading the cache). Figures:
client CPU per case for each (`time.process_time`), their ratio, and whether the verdicts
are equal.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.runner import ROOT, LocalServer, make_cases
from bfcl_action.core.records import Mode
from bfcl_action.model.batch import BatchSettings
from bfcl_action.model.options import BackendOptions
from bfcl_action.runner.pipeline import RunOptions, collect_answers
from bfcl_action.runner.verdicts import judge_outcomes

CASES = 1000
REPEATS = 3


def one_run(base_url: str, cache: Path, batch: BatchSettings | None) -> tuple[float, Any]:
    options = RunOptions(
        backend=BackendOptions(
            model="bench-model", mode=Mode.FC, base_url=base_url, api_key="sk-bench",
            concurrency=32,
        ),
        cache_dir=cache,
        batch=batch,
    )  # fmt: skip
    cases = make_cases(CASES)
    start = time.process_time()
    outcomes, _ = asyncio.run(collect_answers(cases, options))
    spent = time.process_time() - start
    verdicts = {r.id: (r.valid, r.error_type) for r in judge_outcomes(outcomes, Mode.FC)}
    return spent, verdicts


def main() -> dict[str, Any]:
    figures: dict[str, Any] = {"cases": CASES}
    realtime: list[float] = []
    batched: list[float] = []
    equal = True
    with tempfile.TemporaryDirectory() as tmp:
        server = LocalServer(latency=0.0)
        try:
            for attempt in range(REPEATS):
                rt, rt_verdicts = one_run(server.base_url, Path(tmp) / f"rt{attempt}", None)
                settings = BatchSettings(poll_s=0.05, max_poll_s=0.2)
                bt, bt_verdicts = one_run(server.base_url, Path(tmp) / f"b{attempt}", settings)
                realtime.append(1000 * rt / CASES)
                batched.append(1000 * bt / CASES)
                equal = equal and rt_verdicts == bt_verdicts
        finally:
            server.close()
    figures["realtime_cpu_ms_per_case_runs"] = [round(x, 3) for x in realtime]
    figures["batch_cpu_ms_per_case_runs"] = [round(x, 3) for x in batched]
    figures["realtime_cpu_ms_per_case"] = round(statistics.median(realtime), 3)
    figures["batch_cpu_ms_per_case"] = round(statistics.median(batched), 3)
    figures["batch_over_realtime"] = round(
        figures["batch_cpu_ms_per_case"] / figures["realtime_cpu_ms_per_case"], 3
    )
    figures["verdicts_equal"] = equal
    out = ROOT / "bench-results" / "batch.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n")
    realtime_ms, batch_ms = figures["realtime_cpu_ms_per_case"], figures["batch_cpu_ms_per_case"]
    print(
        f"batch: {CASES} cases; client CPU per case real time {realtime_ms:.3f} ms, batch "
        f"{batch_ms:.3f} ms ({figures['batch_over_realtime']:.2f}x); verdicts equal: {equal}"
    )
    return figures

"""Ask a backend for every (case, sample), concurrently, through the cache and the retries.

A fixed pool of `concurrency` workers drains one queue, so there are never more requests in
flight than the bound and no per-case task overhead. Each answer goes to the cache the moment
it arrives; a cancelled run keeps everything received so far.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import random
import time
from collections import deque
from dataclasses import dataclass, field

from bfcl_action.models import TestCase
from bfcl_action.runner.backends import Backend, ModelAnswer, ModelRequest, PermanentError
from bfcl_action.runner.cache import ResponseCache
from bfcl_action.runner.progress import NoProgress, Progress
from bfcl_action.runner.retry import InfraFailure, RetryPolicy, with_retries


@dataclass
class SampleOutcome:
    """One sample's answer, or why there is none (an infrastructure error)."""

    answer: ModelAnswer | None = None
    infra_error: str | None = None
    cached: bool = False


@dataclass
class CaseOutcome:
    case: TestCase
    samples: list[SampleOutcome]


@dataclass
class ExecutionStats:
    total: int = 0
    cache_hits: int = 0
    requests: int = 0
    retries: int = 0
    infra_errors: int = 0
    wall_s: float = 0.0
    retry_reasons: dict[str, int] = field(default_factory=dict)


async def execute(
    cases: list[TestCase],
    backend: Backend,
    *,
    repeat: int = 1,
    concurrency: int = 8,
    policy: RetryPolicy | None = None,
    cache: ResponseCache | None = None,
    progress: Progress | None = None,
    seed: int | None = None,
) -> tuple[list[CaseOutcome], ExecutionStats]:
    """Answers for `repeat` samples of every case; never raises for a single case's failure."""
    policy = policy or RetryPolicy()
    progress = progress or NoProgress()
    rng = random.Random(seed)  # noqa: S311 - jitter only
    stats = ExecutionStats(total=len(cases) * repeat)
    outcomes = [CaseOutcome(c, [SampleOutcome() for _ in range(repeat)]) for c in cases]
    started = time.perf_counter()

    pending: deque[tuple[int, ModelRequest]] = deque()
    for index, case in enumerate(cases):
        for sample in range(repeat):
            try:
                request = backend.build_request(case, sample)
            except PermanentError as exc:
                outcomes[index].samples[sample].infra_error = str(exc)
                stats.infra_errors += 1
                continue
            if cache is not None and request.cache_key is not None:
                hit = cache.get(request.cache_key)
                if hit is not None:
                    outcomes[index].samples[sample] = SampleOutcome(answer=hit, cached=True)
                    stats.cache_hits += 1
                    continue
            pending.append((index, request))

    def on_retry(exc: Exception) -> None:
        stats.retries += 1
        reason = str(exc).split(":")[0]
        stats.retry_reasons[reason] = stats.retry_reasons.get(reason, 0) + 1

    async def ask(request: ModelRequest) -> ModelAnswer:
        stats.requests += 1
        return await backend.send(request)

    async def worker() -> None:
        while pending:
            index, request = pending.popleft()
            slot = outcomes[index].samples[request.sample]
            try:
                answer = await with_retries(
                    functools.partial(ask, request), policy, rng=rng, on_retry=on_retry
                )
            except InfraFailure as exc:
                slot.infra_error = str(exc)
                stats.infra_errors += 1
                progress.advance(failed=True)
                continue
            slot.answer = answer
            if cache is not None and request.cache_key is not None:
                cache.put(
                    request.cache_key, case_id=request.case_id, model=backend.model, answer=answer
                )
            progress.advance()

    progress.start(stats.total, stats.total - len(pending))
    # The cases, requests and rendered tools live for the whole run; freezing them keeps the
    # cyclic GC from rescanning them on every collection (about 5% of client CPU).
    gc.freeze()
    try:
        workers = min(max(1, concurrency), len(pending))
        if workers:
            await asyncio.gather(*(worker() for _ in range(workers)))
    finally:
        gc.unfreeze()
        progress.finish()
        stats.wall_s = time.perf_counter() - started
    return outcomes, stats

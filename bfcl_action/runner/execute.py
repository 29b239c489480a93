"""Ask a backend for every (case, sample), concurrently.

A fixed pool of `concurrency` workers drains one queue, so there are never more cases in
flight than the bound and no per-case task overhead. The cache, retries, request bound and
counters are the model layer's (`bfcl_action.model.request`): a conversation's twenty steps
are counted like twenty single-turn cases. Each answer is cached the moment it arrives; a
cancelled run keeps everything received so far.

An `EndpointError` (rejected key, unknown model, unreachable server) stops the run: the
workers finish what is in flight, no new case starts, and the error is raised.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import gc
import time
from collections import deque
from dataclasses import dataclass, field

from bfcl_action.core.records import TestCase
from bfcl_action.model.retry import InfraFailure
from bfcl_action.model.types import EndpointError, PermanentError, RequestStats
from bfcl_action.runner.answer import Backend, ModelAnswer
from bfcl_action.runner.progress import NoProgress, Progress


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
class ExecutionStats(RequestStats):
    """Answers and infrastructure errors per sample, on top of the request path's counters
    (`RequestStats`: requests, cache hits, retries per model request, every conversation
    step included), copied from the backend when the run ends."""

    total: int = 0
    infra_errors: int = 0
    wall_s: float = 0.0
    notes: list[str] = field(default_factory=list)
    """What stages before the requests did (e.g. the batch stage), for the run's notes."""


async def execute(
    cases: list[TestCase],
    backend: Backend,
    *,
    repeat: int = 1,
    concurrency: int = 8,
    progress: Progress | None = None,
) -> tuple[list[CaseOutcome], ExecutionStats]:
    """Answers for `repeat` samples of every case; a single case's failure never raises."""
    progress = progress or NoProgress()
    stats = ExecutionStats(total=len(cases) * repeat)
    outcomes = [CaseOutcome(c, [SampleOutcome() for _ in range(repeat)]) for c in cases]
    pending: deque[tuple[int, int]] = deque(
        (index, sample) for index in range(len(cases)) for sample in range(repeat)
    )
    stopped: list[EndpointError] = []
    started = time.perf_counter()

    async def worker() -> None:
        while pending and not stopped:
            index, sample = pending.popleft()
            slot = outcomes[index].samples[sample]
            try:
                answer = await backend.answer(cases[index], sample)
            except EndpointError as exc:
                stopped.append(exc)
                return
            except (InfraFailure, PermanentError) as exc:
                slot.infra_error = str(exc)
            except Exception as exc:  # a backend bug must not end the other cases' run
                slot.infra_error = f"unexpected {type(exc).__name__}: {exc}"
            else:
                slot.answer, slot.cached = answer, answer.cached
            if slot.infra_error is not None:
                stats.infra_errors += 1
            progress.advance(failed=slot.infra_error is not None, cached=slot.cached)

    progress.start(stats.total, 0)
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
        for counter in dataclasses.fields(RequestStats):
            setattr(stats, counter.name, copy.copy(getattr(backend.stats, counter.name)))
    if stopped:
        raise stopped[0]
    return outcomes, stats

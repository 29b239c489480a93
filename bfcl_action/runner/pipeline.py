"""One evaluation run from selected cases to a `RunReport`: backend, cache, retries, verdicts."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from bfcl_action.core.categories import is_multi_turn
from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import RequestCounts, RunReport, TestCase
from bfcl_action.model.batch import BatchSettings, answer_by_batch
from bfcl_action.model.cache import DEFAULT_MAX_AGE_S, ResponseCache
from bfcl_action.model.options import BackendOptions
from bfcl_action.model.retry import RetryPolicy
from bfcl_action.model.shapes import describe_shapes
from bfcl_action.multiturn.check import ExecutionOptions
from bfcl_action.results.scoring import attach_case_context, build_report, repeat_summary
from bfcl_action.runner.backends import Backend, create_backend
from bfcl_action.runner.chat import ChatBackend
from bfcl_action.runner.execute import CaseOutcome, ExecutionStats, execute
from bfcl_action.runner.progress import Progress
from bfcl_action.runner.verdicts import Judge, checker_judge, judge_outcomes
from bfcl_action.safety.escape import log_line


@dataclass(frozen=True)
class RunOptions:
    """A run's settings as parsed from the command line (never holds the API key's name)."""

    backend: BackendOptions
    datasets: Sequence[str] = ()
    repeat: int = 1
    max_retries: int = 6
    retry_base_delay: float = 0.5
    cache_dir: Path | None = None
    cache_max_age_s: float | None = DEFAULT_MAX_AGE_S
    """Cached answers older than this are not reused (None: no limit)."""
    cache_read: bool = True
    """False: ask every request afresh (still writing the cache), as scheduled runs do."""
    shard: str = ""
    extra_notes: Sequence[str] = field(default_factory=tuple)
    model_name: str | None = None
    """The model the report names; a replay stands in for the model that was recorded."""
    multi_turn: ExecutionOptions | None = None
    """Sandbox settings for multi-turn environments (default limits, this interpreter)."""
    batch: BatchSettings | None = None
    """Ask single-turn cases by the provider's Batch API first (needs `cache_dir`)."""

    def comparable_settings(self) -> dict[str, object]:
        """Settings that change scores, hashed into the fingerprint (shards of one run share it)."""
        from bfcl_action.model.providers.openai import is_reasoning_model

        backend = self.backend
        reasoning = is_reasoning_model(backend.model)  # sent no temperature or top_p
        settings: dict[str, object] = {
            "temperature": "server default"
            if backend.temperature is None or reasoning
            else backend.temperature
        }
        if backend.top_p is not None and not reasoning:
            settings["top_p"] = backend.top_p
        if backend.seed is not None:
            settings["seed"] = backend.seed
        if self.repeat != 1:
            settings["repeat"] = self.repeat
        if self.backend.max_tokens is not None:
            settings["max_tokens"] = self.backend.max_tokens
        return settings


def open_backend(options: RunOptions) -> tuple[Backend, ResponseCache | None]:
    """The run's backend over its request path (cache, retries); the caller closes both."""
    cache = (
        ResponseCache(options.cache_dir, max_age_s=options.cache_max_age_s, read=options.cache_read)
        if options.cache_dir
        else None
    )
    try:
        backend = create_backend(
            options.backend,
            cache=cache,
            policy=RetryPolicy(
                max_retries=options.max_retries, base_delay=options.retry_base_delay
            ),
            multi_turn=options.multi_turn or ExecutionOptions(),
        )
    except BaseException:
        if cache is not None:
            cache.close()
        raise
    return backend, cache


async def collect_answers(
    cases: Sequence[TestCase],
    options: RunOptions,
    *,
    backend: Backend | None = None,
    progress: Progress | None = None,
) -> tuple[list[CaseOutcome], ExecutionStats]:
    """Ask the model (or the cache) for every case; the I/O half of a run. A given
    `backend` brings its own request path (cache and retries) and stays open."""
    cache = None
    owned = backend is None
    if backend is None:
        backend, cache = open_backend(options)
    try:
        batch_notes: list[str] = []
        if options.batch is not None:
            batch_notes = await answer_batch(cases, options, backend, options.batch)
        outcomes, stats = await execute(
            list(cases),
            backend,
            repeat=options.repeat,
            concurrency=options.backend.concurrency,
            progress=progress,
        )
    finally:
        if owned:
            await backend.aclose()
        if cache is not None:
            cache.close()
    stats.notes.extend(batch_notes)
    return list(outcomes), stats


def submit_batch(cases: Sequence[TestCase], options: RunOptions) -> None:
    """Create the run's batch without waiting for it: its id is recorded beside the cache
    (`batches.json`) and the run that follows collects it. A model matrix submits every
    model's batch first, so the batches run at the same time and the wait is the longest
    one, not their sum."""
    assert options.batch is not None

    async def submit() -> None:
        backend, cache = open_backend(options)
        try:
            assert options.batch is not None
            await answer_batch(cases, options, backend, replace(options.batch, wait_s=0.0))
        finally:
            await backend.aclose()
            if cache is not None:
                cache.close()

    asyncio.run(submit())


async def answer_batch(
    cases: Sequence[TestCase], options: RunOptions, backend: Backend, settings: BatchSettings
) -> list[str]:
    """Put the answers of the run's single-turn requests into the cache by the Batch API
    (`bfcl_action.model.batch`); the run's notes about it. Multi-turn cases stay real-time:
    each step needs the answer before it."""
    if not isinstance(backend, ChatBackend):
        raise ConfigError("--batch needs a model endpoint, not a replay", field="batch")
    requests = [
        backend.request(case, sample)[0]
        for case in cases
        if not is_multi_turn(case.category)
        for sample in range(options.repeat)
    ]
    outcome = await answer_by_batch(
        backend.client, requests, settings, log=lambda line: print(line, file=sys.stderr)
    )
    notes = outcome.notes(settings.on_failure)
    if any(is_multi_turn(case.category) for case in cases):
        notes.append("batch: multi-turn cases were asked in real time (each step needs the last)")
    return notes


def run_evaluation(
    cases: Sequence[TestCase],
    options: RunOptions,
    *,
    backend: Backend | None = None,
    judge: Judge | None = None,
    progress: Progress | None = None,
) -> tuple[RunReport, ExecutionStats]:
    """Answers for every case, checked and scored into a report. Raises `EndpointError`
    when the endpoint cannot serve the run (answers received so far stay in the cache)."""
    cache = None
    owned = backend is None
    if backend is None:
        backend, cache = open_backend(options)
    mode = backend.mode  # a replayed run report says which mode it was recorded in

    async def answers(backend: Backend) -> tuple[list[CaseOutcome], ExecutionStats]:
        try:
            return await collect_answers(cases, options, backend=backend, progress=progress)
        finally:
            if owned:
                await backend.aclose()

    try:
        outcomes, stats = asyncio.run(answers(backend))
    finally:
        if cache is not None:
            cache.close()
    results = judge_outcomes(outcomes, mode, judge or checker_judge(options.multi_turn))
    notes = list(options.extra_notes)
    notes.append(
        f"requests {stats.requests}, cache hits {stats.cache_hits}, retries {stats.retries}, "
        f"infrastructure errors {stats.infra_errors}"
        + (f", identical requests answered once {stats.shared}" if stats.shared else "")
    )
    notes.extend(stats.notes)
    notes.extend(describe_shapes(stats.shapes))
    if stats.models:
        served = ", ".join(f"{log_line(m, 80)} ({n})" for m, n in stats.models.most_common(3))
        prints = ", ".join(
            f"{log_line(fp, 40)} ({n})" for fp, n in stats.fingerprints.most_common(3)
        )
        notes.append(f"served by {served}" + (f"; system fingerprints {prints}" if prints else ""))
    extra, unstable = repeat_summary(results) if options.repeat > 1 else ({}, [])
    if unstable:
        notes.append(f"unstable across {options.repeat} samples: {', '.join(unstable)}")
    report = build_report(
        results,
        model=options.model_name or options.backend.model,
        mode=mode,
        datasets=list(options.datasets),
        settings=options.comparable_settings(),
        notes=notes,
    )
    report.summary.update(extra)
    report.shard = options.shard
    # a replay asks no model: no request line (the notes say the answers were replayed)
    replayed = options.backend.model.startswith("replay:")
    report.requests = None if replayed else request_counts(stats, options)
    # the question, expected answer and offered tools travel with each result, so a later
    # comparison can explain a flipped case without the dataset at hand
    return attach_case_context(report, cases), stats


def request_counts(stats: ExecutionStats, options: RunOptions) -> RequestCounts:
    """The run's requests as the report keeps them (asked = sent, retries aside)."""
    cache: Literal["on", "off", "fresh"] = "off"
    if options.cache_dir is not None:
        cache = "on" if options.cache_read else "fresh"
    return RequestCounts(
        asked=max(0, stats.requests - stats.retries),
        reused=stats.cache_hits,
        shared=stats.shared,
        retries=stats.retries,
        cache=cache,
        served_fresh=dict(stats.served_fresh),
        served_cached=dict(stats.served_cached),
    )


def infra_error_rate(report: RunReport) -> float:
    if not report.results:
        return 0.0
    return sum(r.infra_error is not None for r in report.results) / len(report.results)


__all__ = ["RunOptions", "collect_answers", "infra_error_rate", "open_backend", "run_evaluation"]

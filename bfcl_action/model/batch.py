"""Answers by a provider's Batch API: the same requests, half the price, up to 24 hours late.

A batch run does not get a second way to ask or to judge. Its single-turn requests go to the
provider in one batch (a JSONL file of request bodies, one `custom_id` each: the request's
cache key); the answers that come back are written into the run's response cache. The run
that follows is an ordinary run that finds them there, so the checker sees exactly what a
real-time run would on the same answers, and a rerun asks for nothing twice.

What the caller can rely on:
- A batch is recorded in `batches.json` beside the cache the moment it is created. A run
  that stops waiting (`wait_s`) leaves it there, and the next run polls that batch instead
  of submitting the same requests again.
- Requests the batch could not answer (a failed, expired or cancelled batch, or one line's
  error) are either left to the real-time path (`on_failure="realtime"`) or refused as
  infrastructure errors (`"error"`); requests still pending in a batch are refused for this
  run with the batch id, never asked again in real time (that would pay twice).
- Multi-turn cases never go in a batch: each step needs the previous step's answer.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from bfcl_action.errors import ConfigError
from bfcl_action.jsonl import scan_jsonl
from bfcl_action.model.request import ModelClient
from bfcl_action.model.retry import InfraFailure, with_retries
from bfcl_action.model.types import ChatRequest, ChatResponse

STATE_FILE = "batches.json"
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
MAX_REQUESTS_PER_BATCH = 50_000
"""OpenAI's cap on the lines of one batch input file."""
MAX_BATCH_BYTES = 190 * 1024 * 1024
"""Below OpenAI's 200 MB cap on a batch input file, with room for the JSON framing."""

OnFailure = Literal["realtime", "error"]
T = TypeVar("T")


@runtime_checkable
class BatchProvider(Protocol):
    """What a provider offers for batches (OpenAI's files + batches endpoints)."""

    name: str

    def batch_line(self, custom_id: str, request: ChatRequest) -> dict[str, Any]:
        """One input line: `{"custom_id", "method", "url", "body"}`."""
        ...

    def read_batch_body(self, body: dict[str, Any], tool_names: set[str]) -> ChatResponse:
        """A response body of the output file, read as a real-time answer would be."""
        ...

    async def submit_batch(self, data: bytes) -> dict[str, Any]:
        """Upload `data` as the input file and create the batch; the batch object."""
        ...

    async def retrieve_batch(self, batch_id: str) -> dict[str, Any]: ...

    async def download_file(self, file_id: str) -> bytes: ...


@dataclass(frozen=True)
class BatchSettings:
    """How a batch run waits and what it does with what the batch could not answer."""

    wait_s: float = 3600.0
    """How long this run waits for its batches; the rest is collected by the next run."""
    poll_s: float = 5.0
    """The first wait between two looks at a batch; it doubles up to `max_poll_s`."""
    max_poll_s: float = 120.0
    on_failure: OnFailure = "realtime"


@dataclass
class BatchOutcome:
    """What the batch stage did, for the run's notes."""

    submitted: int = 0
    """Requests sent in batches created by this run."""
    resumed: int = 0
    """Requests found in batches an earlier run created and left running."""
    answered: int = 0
    """Answers written into the cache (this run's requests and any others the batch held)."""
    already_cached: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    """Cache key -> why the batch has no answer for it."""
    pending: dict[str, str] = field(default_factory=dict)
    """Cache key -> id of the batch still working on it when the wait ended."""
    batch_ids: list[str] = field(default_factory=list)
    polls: int = 0

    def notes(self, on_failure: OnFailure) -> list[str]:
        if not (self.submitted or self.resumed or self.already_cached):
            return []
        ids = ", ".join(self.batch_ids) or "none"
        line = (
            f"batch: {self.submitted} requests submitted, {self.resumed} resumed, "
            f"{self.answered} answers received, {self.already_cached} already cached "
            f"(batches {ids})"
        )
        notes = [line]
        if self.failed:
            then = "asked in real time" if on_failure == "realtime" else "infrastructure errors"
            notes.append(f"batch: {len(self.failed)} requests had no answer ({then})")
        if self.pending:
            notes.append(
                f"batch: {len(self.pending)} requests still running when the wait ended; "
                "the next run collects them (infrastructure errors in this run)"
            )
        return notes


@dataclass
class _Recorded:
    id: str
    keys: list[str]
    created: float


class BatchState:
    """`batches.json` beside the cache: the batches created and not yet collected."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / STATE_FILE
        self.batches: dict[str, _Recorded] = {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        for entry in data.get("batches", []) if isinstance(data, dict) else []:
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                keys = [k for k in entry.get("keys", []) if isinstance(k, str)]
                self.batches[entry["id"]] = _Recorded(
                    entry["id"], keys, float(entry.get("created", 0))
                )

    def add(self, batch_id: str, keys: list[str]) -> None:
        self.batches[batch_id] = _Recorded(batch_id, keys, time.time())
        self.save()

    def remove(self, batch_id: str) -> None:
        self.batches.pop(batch_id, None)
        self.save()

    def save(self) -> None:
        payload = {
            "batches": [
                {"id": b.id, "created": b.created, "keys": b.keys} for b in self.batches.values()
            ]
        }
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
        tmp.replace(self.path)


def batch_provider(client: ModelClient) -> BatchProvider:
    """The client's provider if it has a batch API, else a config error naming it."""
    provider = client.provider
    if not isinstance(provider, BatchProvider):
        name = getattr(provider, "name", type(provider).__name__)
        raise ConfigError(f"the {name} provider has no batch API; run without --batch")
    return provider


def _chunks(lines: list[bytes]) -> list[list[bytes]]:
    out: list[list[bytes]] = [[]]
    size = 0
    for line in lines:
        if len(out[-1]) >= MAX_REQUESTS_PER_BATCH or size + len(line) > MAX_BATCH_BYTES:
            out.append([])
            size = 0
        out[-1].append(line)
        size += len(line)
    return [chunk for chunk in out if chunk]


def _error_text(entry: dict[str, Any]) -> str:
    error = entry.get("error")
    if isinstance(error, dict):
        return f"{error.get('code') or 'error'}: {error.get('message') or ''}".strip()
    response = entry.get("response")
    if isinstance(response, dict):
        body = response.get("body")
        message = body.get("error", {}).get("message") if isinstance(body, dict) else None
        return f"HTTP {response.get('status_code')}: {message or 'no message'}"
    return "no answer"


async def answer_by_batch(
    client: ModelClient,
    requests: Sequence[ChatRequest],
    settings: BatchSettings,
    *,
    log: Callable[[str], None] = lambda _: None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> BatchOutcome:
    """Put the answers to `requests` into `client.cache` by the provider's Batch API, and
    tell `client` which requests to refuse (see the module docstring)."""
    if client.cache is None:
        raise ConfigError("a batch run needs the response cache (--cache-dir)", field="batch")
    provider = batch_provider(client)
    cache = client.cache
    outcome = BatchOutcome()
    wanted: dict[str, ChatRequest] = {}
    for request in requests:
        key = client.key(request)
        if key in wanted:
            continue
        if key in cache:
            outcome.already_cached += 1
            continue
        wanted[key] = request
    state = BatchState(cache.directory)
    running = {k: b.id for b in state.batches.values() for k in b.keys}
    resumed = {running[k] for k in wanted if k in running}
    outcome.resumed = sum(1 for k in wanted if k in running)
    to_send = [k for k in wanted if k not in running]
    lines = [
        (json.dumps(provider.batch_line(k, wanted[k]), separators=(",", ":")) + "\n").encode()
        for k in to_send
    ]
    active: list[str] = sorted(resumed)
    offset = 0
    for chunk in _chunks(lines):
        keys = to_send[offset : offset + len(chunk)]
        offset += len(chunk)
        data = b"".join(chunk)
        try:
            batch = await _retried(client, functools.partial(provider.submit_batch, data))
        except InfraFailure as exc:
            for key in keys:
                outcome.failed[key] = f"the batch could not be created: {exc}"
            continue
        state.add(str(batch["id"]), keys)
        active.append(str(batch["id"]))
        outcome.submitted += len(keys)
        log(f"batch {batch['id']}: {len(keys)} requests submitted")
    outcome.batch_ids = list(active)

    deadline = clock() + settings.wait_s
    wait = settings.poll_s
    while active:
        still: list[str] = []
        for batch_id in active:
            try:
                batch = await _retried(client, functools.partial(provider.retrieve_batch, batch_id))
            except InfraFailure as exc:
                log(f"batch {batch_id}: cannot be read now ({exc}); the next run tries again")
                for key in state.batches[batch_id].keys:
                    if key in wanted:
                        outcome.pending[key] = batch_id
                continue
            outcome.polls += 1
            status = str(batch.get("status"))
            if status in TERMINAL:
                try:
                    await _collect(provider, client, batch, state, wanted, outcome)
                except InfraFailure as exc:
                    log(f"batch {batch_id}: results cannot be read now ({exc})")
                    outcome.pending.update(
                        (k, batch_id) for k in state.batches[batch_id].keys if k in wanted
                    )
                    continue
                state.remove(batch_id)
            else:
                still.append(batch_id)
                counts = batch.get("request_counts") or {}
                log(
                    f"batch {batch_id}: {status}, {counts.get('completed', 0)} of "
                    f"{counts.get('total', '?')} done"
                )
        active = still
        if not active:
            break
        if clock() + wait > deadline:
            for batch_id in active:
                for key in state.batches[batch_id].keys:
                    if key in wanted and key not in cache:
                        outcome.pending[key] = batch_id
            break
        await sleep(wait)
        wait = min(settings.max_poll_s, wait * 2)

    for key, batch_id in outcome.pending.items():
        client.refuse(key, f"answer pending in batch {batch_id}; the next run collects it")
    if settings.on_failure == "error":
        for key, reason in outcome.failed.items():
            client.refuse(key, f"batch gave no answer: {reason}")
    return outcome


async def _collect(
    provider: BatchProvider,
    client: ModelClient,
    batch: dict[str, Any],
    state: BatchState,
    wanted: dict[str, ChatRequest],
    outcome: BatchOutcome,
) -> None:
    """Write a finished batch's answers into the cache; note every key it failed."""
    assert client.cache is not None
    batch_id = str(batch["id"])
    keys = state.batches[batch_id].keys if batch_id in state.batches else []
    answered: set[str] = set()
    if batch.get("output_file_id"):
        file_id = str(batch["output_file_id"])
        text = (await _retried(client, lambda: provider.download_file(file_id))).decode()
        for line in scan_jsonl(text):
            entry: dict[str, Any] = line.value or {}
            key = str(entry.get("custom_id", ""))
            response = entry.get("response")
            if not isinstance(response, dict):
                response = {}
            body = response.get("body")
            if not key or not isinstance(body, dict) or response.get("status_code") != 200:
                if key:
                    outcome.failed[key] = _error_text(entry)
                continue
            request = wanted.get(key)
            names = {str(t.get("name")) for t in request.tools} if request else set()
            try:
                answer = provider.read_batch_body(body, names)
            except Exception as exc:  # a malformed line fails that request, not the batch
                outcome.failed[key] = f"unreadable answer: {type(exc).__name__}"
                continue
            client.cache.put(
                key, case_id=request.case_id if request else "", model=client.model, answer=answer
            )
            client.mark_fresh(key)
            answered.add(key)
            outcome.failed.pop(key, None)
    if batch.get("error_file_id"):
        error_id = str(batch["error_file_id"])
        text = (await _retried(client, lambda: provider.download_file(error_id))).decode()
        for line in scan_jsonl(text):
            entry = line.value or {}
            key = str(entry.get("custom_id", ""))
            if key and key not in answered:
                outcome.failed[key] = _error_text(entry)
    status = str(batch.get("status"))
    reason = status
    errors = batch.get("errors")
    if isinstance(errors, dict) and errors.get("data"):
        first = errors["data"][0]
        reason = f"{status}: {first.get('code')}: {first.get('message')}"
    for key in keys:
        if key not in answered and key not in outcome.failed:
            outcome.failed[key] = f"batch {batch_id} {reason} without an answer for it"
    outcome.answered += len(answered)
    # only this run's requests count as failed; another run's are asked again when wanted
    for key in [k for k in outcome.failed if k not in wanted]:
        del outcome.failed[key]


async def _retried(client: ModelClient, call: Callable[[], Awaitable[T]]) -> T:
    """A files or batches call under the run's retry policy (429s, 5xx, dropped links)."""
    return await with_retries(call, client.policy)

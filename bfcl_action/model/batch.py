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
- Every field read from the provider (the batch object, its `errors.data`, each output
  line) and from `batches.json` is validated by a pydantic model; a bad field fails the
  requests it concerns with a clear message, never the run. An output line is accepted only
  for a `custom_id` the batch was recorded with: a provider cannot plant answers for
  requests it was never sent (another model's, say). Result files and the state file are
  size-capped.
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

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bfcl_action.core.errors import ConfigError
from bfcl_action.model.request import ModelClient
from bfcl_action.model.retry import InfraFailure, with_retries
from bfcl_action.model.types import ChatRequest, ChatResponse
from bfcl_action.safety.jsonl import scan_jsonl

STATE_FILE = "batches.json"
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
MAX_REQUESTS_PER_BATCH = 50_000
"""OpenAI's cap on the lines of one batch input file."""
MAX_BATCH_BYTES = 190 * 1024 * 1024
"""Below OpenAI's 200 MB cap on a batch input file, with room for the JSON framing."""

MAX_RESULT_FILE_BYTES = 512 * 1024 * 1024
"""An output or error file larger than this is refused (its requests fail), not parsed."""
MAX_STATE_BYTES = 16 * 1024 * 1024

OnFailure = Literal["realtime", "error"]


class _Fields(BaseModel):
    model_config = ConfigDict(extra="ignore")


class BatchErrorItem(_Fields):
    code: str | None = Field(default=None, max_length=200)
    message: str | None = Field(default=None, max_length=2000)


class BatchErrors(_Fields):
    data: list[BatchErrorItem] = Field(default_factory=list, max_length=10_000)


class BatchCounts(_Fields):
    total: int = Field(default=0, ge=0)
    completed: int = Field(default=0, ge=0)


class BatchObject(_Fields):
    """The fields of a provider's batch object a run reads."""

    id: str = Field(min_length=1, max_length=200)
    status: str = Field(max_length=60)
    output_file_id: str | None = Field(default=None, max_length=200)
    error_file_id: str | None = Field(default=None, max_length=200)
    request_counts: BatchCounts | None = None


class OutputResponse(_Fields):
    status_code: int | None = None
    body: dict[str, Any] | None = None


class OutputLine(_Fields):
    """One line of a batch's output or error file."""

    custom_id: str = Field(min_length=1, max_length=200)
    response: OutputResponse | None = None
    error: BatchErrorItem | None = None


class _StateEntry(_Fields):
    id: str = Field(min_length=1, max_length=200)
    created: float = Field(default=0.0, allow_inf_nan=False)
    keys: list[str] = Field(default_factory=list)


class _StateFile(_Fields):
    batches: list[_StateEntry] = Field(default_factory=list)


class BatchFieldError(Exception):
    """A field the provider (or `batches.json`) sent is not what the run can use."""


def _problem(exc: ValidationError, what: str) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top)"
    return f"malformed {what}: {where}: {first['msg']} (found {repr(first.get('input'))[:40]})"


def read_batch_object(raw: object) -> BatchObject:
    try:
        return BatchObject.model_validate(raw)
    except ValidationError as exc:
        raise BatchFieldError(_problem(exc, "batch object")) from None


def batch_reason(raw: object) -> str:
    """The batch's status with its first error, read leniently: a malformed `errors`
    field says so instead of failing the collection."""
    status = str(raw.get("status"))[:60] if isinstance(raw, dict) else "unknown"
    errors = raw.get("errors") if isinstance(raw, dict) else None
    if errors is None:
        return status
    try:
        parsed = BatchErrors.model_validate(errors)
    except ValidationError as exc:
        return f"{status} ({_problem(exc, 'errors field')})"
    if not parsed.data:
        return status
    first = parsed.data[0]
    return f"{status}: {first.code}: {first.message}"


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
    ignored: int = 0
    """Output lines for requests the batch was never recorded with (never cached)."""

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
        if self.ignored:
            notes.append(
                f"batch: {self.ignored} answers ignored: their custom_id was never sent in "
                "that batch"
            )
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
        self.problem: str | None = None
        """Why the file was set aside (unreadable, too large, malformed), or None."""
        try:
            if self.path.stat().st_size > MAX_STATE_BYTES:
                raise ValueError(f"larger than {MAX_STATE_BYTES} bytes")
            parsed = _StateFile.model_validate_json(self.path.read_bytes())
        except FileNotFoundError:
            return
        except ValidationError as exc:
            self.problem = _problem(exc, STATE_FILE)
            return
        except (OSError, ValueError) as exc:
            self.problem = f"unreadable {STATE_FILE}: {exc}"
            return
        for entry in parsed.batches:
            self.batches[entry.id] = _Recorded(entry.id, list(entry.keys), entry.created)

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
    if state.problem:
        log(f"batch: {state.problem}; its batches are not collected (starting afresh)")
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
            raw = await _retried(client, functools.partial(provider.submit_batch, data))
            created = read_batch_object(raw)
        except (InfraFailure, BatchFieldError) as exc:
            for key in keys:
                outcome.failed[key] = f"the batch could not be created: {exc}"
            continue
        state.add(created.id, keys)
        active.append(created.id)
        outcome.submitted += len(keys)
        log(f"batch {created.id}: {len(keys)} requests submitted")
    outcome.batch_ids = list(active)

    deadline = clock() + settings.wait_s
    wait = settings.poll_s
    while active:
        still: list[str] = []
        for batch_id in active:
            try:
                raw = await _retried(client, functools.partial(provider.retrieve_batch, batch_id))
                batch = read_batch_object(raw)
                if batch.id != batch_id:
                    raise BatchFieldError(f"asked for batch {batch_id}, got {batch.id[:60]}")
            except (InfraFailure, BatchFieldError) as exc:
                log(f"batch {batch_id}: cannot be read now ({exc}); the next run tries again")
                for key in state.batches[batch_id].keys:
                    if key in wanted:
                        outcome.pending[key] = batch_id
                continue
            outcome.polls += 1
            status = batch.status
            if status in TERMINAL:
                try:
                    await _collect(
                        provider, client, batch, batch_reason(raw), state, wanted, outcome
                    )
                except (InfraFailure, BatchFieldError) as exc:
                    log(f"batch {batch_id}: results cannot be read now ({exc})")
                    outcome.pending.update(
                        (k, batch_id) for k in state.batches[batch_id].keys if k in wanted
                    )
                    continue
                state.remove(batch_id)
            else:
                still.append(batch_id)
                counts = batch.request_counts or BatchCounts()
                log(f"batch {batch_id}: {status}, {counts.completed} of {counts.total} done")
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
    batch: BatchObject,
    reason: str,
    state: BatchState,
    wanted: dict[str, ChatRequest],
    outcome: BatchOutcome,
) -> None:
    """Write a finished batch's answers into the cache, for the keys it was recorded with
    only; note every key it failed."""
    assert client.cache is not None
    batch_id = batch.id
    keys = state.batches[batch_id].keys if batch_id in state.batches else []
    recorded = set(keys)
    answered: set[str] = set()
    planted = 0
    if batch.output_file_id:
        for line in await _result_lines(client, provider, batch.output_file_id):
            if isinstance(line, str):
                continue  # a line without a readable custom_id concerns no request we know
            key = line.custom_id
            if key not in recorded:
                planted += 1
                continue
            response = line.response
            if response is None or response.status_code != 200 or response.body is None:
                outcome.failed[key] = _line_error(line)
                continue
            request = wanted.get(key)
            names = {str(t.get("name")) for t in request.tools} if request else set()
            try:
                answer = provider.read_batch_body(response.body, names)
            except Exception as exc:  # a malformed line fails that request, not the batch
                outcome.failed[key] = f"unreadable answer: {type(exc).__name__}: {exc}"[:300]
                continue
            client.cache.put(
                key, case_id=request.case_id if request else "", model=client.model, answer=answer
            )
            client.mark_fresh(key)
            answered.add(key)
            outcome.failed.pop(key, None)
    if batch.error_file_id:
        for line in await _result_lines(client, provider, batch.error_file_id):
            if isinstance(line, str):
                continue
            if line.custom_id in recorded and line.custom_id not in answered:
                outcome.failed[line.custom_id] = _line_error(line)
    if planted:
        outcome.ignored += planted
    for key in keys:
        if key not in answered and key not in outcome.failed:
            outcome.failed[key] = f"batch {batch_id} {reason} without an answer for it"
    outcome.answered += len(answered)
    # only this run's requests count as failed; another run's are asked again when wanted
    for key in [k for k in outcome.failed if k not in wanted]:
        del outcome.failed[key]


async def _result_lines(
    client: ModelClient, provider: BatchProvider, file_id: str
) -> list[OutputLine | str]:
    """The lines of a result file, each validated (a string: why that line is unusable);
    a file over `MAX_RESULT_FILE_BYTES` is refused as a whole."""
    data = await _retried(client, lambda: provider.download_file(file_id))
    if len(data) > MAX_RESULT_FILE_BYTES:
        raise BatchFieldError(f"result file {file_id} over {MAX_RESULT_FILE_BYTES} bytes")
    out: list[OutputLine | str] = []
    for line in scan_jsonl(data.decode("utf-8", "replace")):
        try:
            out.append(OutputLine.model_validate(line.value))
        except ValidationError as exc:
            out.append(_problem(exc, "result line"))
    return out


def _line_error(line: OutputLine) -> str:
    if line.error is not None:
        return f"{line.error.code or 'error'}: {line.error.message or ''}".strip()
    response = line.response
    if response is not None:
        body = response.body or {}
        error = body.get("error")
        message = error.get("message") if isinstance(error, dict) else None
        text = message if isinstance(message, str) else "no message"
        return f"HTTP {response.status_code}: {text[:300]}"
    return "no answer"


async def _retried(client: ModelClient, call: Callable[[], Awaitable[T]]) -> T:
    """A files or batches call under the run's retry policy (429s, 5xx, dropped links)."""
    return await with_retries(call, client.policy)

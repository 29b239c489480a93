"""The one request path: every model request of a run, a single-turn case's or a
conversation step's, goes through `ModelClient.generate`.

In order: a run already stopped by an endpoint error fails at once; the response cache
answers if it can; otherwise the request waits for one of `concurrency` slots and is tried
with retries (`bfcl_action.model.retry`), each attempt bounded by a deadline on the *whole*
request (a server that drips bytes cannot hold it past `timeout`). Every attempt, retry and
cache hit is counted in `stats`.

Two guards keep a broken endpoint from failing a whole run case by case:
- an `EndpointError` (rejected key, unknown model, wrong path) stops the run: it is raised
  for this request and, without asking, for every later one;
- a circuit breaker: `breaker_threshold` connection failures in a row, with no answer in
  between, are one outage; it opens as an `EndpointError` naming the URL.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from bfcl_action.core.fingerprint import canonical_json, sha256_hex
from bfcl_action.model.cache import ResponseCache
from bfcl_action.model.options import BackendOptions
from bfcl_action.model.registry import Provider, create_provider
from bfcl_action.model.retry import InfraFailure, RetryPolicy, with_retries
from bfcl_action.model.types import (
    ChatRequest,
    ChatResponse,
    EndpointError,
    Message,
    RequestStats,
    TransientError,
    served_label,
)

KEY_VERSION = "2"
"""Bumped when what a cache key covers changes, so old rows stop matching."""


def request_key(identity: dict[str, Any], request: ChatRequest) -> str:
    """Content address of one response: who was asked how (endpoint, model, sampling), with
    which tools, which sample, and the whole message history."""
    tools = request.tools_key or (
        sha256_hex(canonical_json(request.tools)) if request.tools else ""
    )
    fields = {"v": KEY_VERSION, **identity, "tools": tools, "sample": request.sample}
    if request.response_format is not None:
        fields["response_format"] = request.response_format
    head = canonical_json(fields)
    return sha256_hex(head + "\n" + json.dumps(request.messages, sort_keys=True))


class ModelClient:
    """A provider behind the cache, the retries, a concurrency bound and the counters."""

    def __init__(
        self,
        provider: Provider,
        *,
        cache: ResponseCache | None = None,
        policy: RetryPolicy | None = None,
        concurrency: int = 8,
        timeout: float = 60.0,
        seed: int | None = None,
        breaker_threshold: int | None = None,
    ) -> None:
        self.provider = provider
        self.model = provider.model
        self.endpoint = provider.endpoint
        self.cache = cache
        self.policy = policy or RetryPolicy()
        self.timeout = timeout
        self.stats = RequestStats()
        self.breaker_threshold = breaker_threshold or max(8, 2 * concurrency)
        self._identity = provider.identity()
        self._slots = asyncio.Semaphore(max(1, concurrency))
        self._rng = random.Random(seed)  # noqa: S311 - jitter only
        self._connection_failures = 0
        self._stopped: EndpointError | None = None
        self._answered: dict[str, asyncio.Future[ChatResponse]] = {}
        """Keys asked in this run (in flight or answered), for identical requests."""
        self._fresh: set[str] = set()
        """Keys the batch stage put in the cache during this run (this run's answers)."""
        self._refused: dict[str, str] = {}
        """Keys this run must not ask, with the reason (e.g. pending in a batch)."""

    def key(self, request: ChatRequest) -> str:
        """The cache key `request` is stored under (what `impact` predicts with)."""
        return request_key(self._identity, request)

    def mark_fresh(self, key: str) -> None:
        """The answer cached under `key` was received in this run (by a batch): reading it
        is not reuse of an earlier run's answer."""
        self._fresh.add(key)

    def refuse(self, key: str, reason: str) -> None:
        """Answer the request under `key` with `InfraFailure(reason)` unless it is cached:
        the batch stage uses it for requests a batch still holds or could not answer."""
        self._refused[key] = reason

    @property
    def stopped(self) -> EndpointError | None:
        """The error that stopped the run, if one did."""
        return self._stopped

    async def generate(self, request: ChatRequest) -> ChatResponse:
        """The response to `request`, from the cache or the model. Raises `InfraFailure`
        when retries run out or the request is refused, `EndpointError` when the run stops.

        Identical requests of one run are asked once, cache or not: a second one waits for
        the first one's answer (or failure) instead of asking again, and neither counts as a
        cache hit (`cached` means answered by an earlier run)."""
        if self._stopped is not None:
            raise self._stopped
        key = self.key(request)
        if key in self._answered:
            self.stats.shared += 1
            shared = await asyncio.shield(self._answered[key])
            self._count(shared)
            return shared
        hit = self.cache.get(key) if self.cache is not None else None
        if hit is not None:
            if key in self._fresh:
                self._count(hit)
                self.stats.batched += 1
                return hit
            self.stats.cache_hits += 1
            self._count(hit, cached=True)
            return dataclasses.replace(hit, cached=True)
        if key in self._refused:
            raise InfraFailure(self._refused[key], 0)
        future: asyncio.Future[ChatResponse] = asyncio.get_running_loop().create_future()
        self._answered[key] = future
        try:
            response = await self._ask(request)
        except asyncio.CancelledError:
            future.cancel()
            del self._answered[key]
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # a failure nobody else waits for is not "never retrieved"
            del self._answered[key]
            raise
        future.set_result(response)
        if self.cache is not None:
            self.cache.put(key, case_id=request.case_id, model=self.model, answer=response)
        return response

    async def _ask(self, request: ChatRequest) -> ChatResponse:
        response = await with_retries(
            lambda: self._attempt(request), self.policy, rng=self._rng, on_retry=self._on_retry
        )
        self._count(response)
        return response

    async def _attempt(self, request: ChatRequest) -> ChatResponse:
        if self._stopped is not None:
            raise self._stopped
        async with self._slots:
            self.stats.requests += 1
            try:
                async with asyncio.timeout(self.timeout):
                    response = await self.provider.complete(request)
            except TimeoutError:
                self._connection_failures = 0
                raise TransientError(
                    f"timeout: no complete answer within {self.timeout:g}s"
                ) from None
            except TransientError as exc:
                if exc.connection:
                    self._connection_failures += 1
                    if self._connection_failures >= self.breaker_threshold:
                        self._stop(
                            EndpointError(
                                f"cannot reach {self.endpoint}: {self._connection_failures} "
                                f"connection failures in a row (last: {exc}); is the server "
                                "up and the base URL right?",
                                field="base-url",
                            )
                        )
                else:
                    self._connection_failures = 0
                raise
            except EndpointError as exc:
                self._stop(exc)
            except Exception:
                self._connection_failures = 0
                raise
        self._connection_failures = 0
        return response

    def _stop(self, error: EndpointError) -> NoReturn:
        if self._stopped is None:
            self._stopped = error
        raise self._stopped

    def _on_retry(self, exc: TransientError) -> None:
        self.stats.retries += 1
        reason = str(exc).split(":")[0]
        self.stats.retry_reasons[reason] = self.stats.retry_reasons.get(reason, 0) + 1

    def _count(self, response: ChatResponse, *, cached: bool = False) -> None:
        label = served_label(response.model, response.system_fingerprint)
        (self.stats.served_cached if cached else self.stats.served_fresh)[label] += 1
        self.stats.shapes.update(response.shapes)
        if response.model:
            self.stats.models[response.model] += 1
        if response.system_fingerprint:
            self.stats.fingerprints[response.system_fingerprint] += 1

    async def aclose(self) -> None:
        await self.provider.aclose()


def open_client(
    options: BackendOptions,
    *,
    cache: ResponseCache | None = None,
    policy: RetryPolicy | None = None,
) -> ModelClient:
    """The request path for `options` (provider from the registry; bad options raise
    `ConfigError` here, before any request)."""
    return ModelClient(
        create_provider(options),
        cache=cache,
        policy=policy,
        concurrency=options.concurrency,
        timeout=options.timeout,
    )


def ask(
    messages: Sequence[Message],
    tools: Sequence[dict[str, Any]],
    options: BackendOptions,
    *,
    cache_dir: Path | None = None,
    policy: RetryPolicy | None = None,
    stats: RequestStats | None = None,
) -> ChatResponse:
    """One request from synchronous code (e.g. asking a model to write JSON): neutral
    messages and function schemas in, the response out; cached in `cache_dir` when given,
    retried by `policy`, counted into `stats` when given. Raises `InfraFailure` or
    `EndpointError`."""

    async def go() -> ChatResponse:
        cache = ResponseCache(cache_dir) if cache_dir is not None else None
        client = open_client(options, cache=cache, policy=policy)
        try:
            return await client.generate(ChatRequest(list(messages), list(tools)))
        finally:
            await client.aclose()
            if cache is not None:
                cache.close()
            if stats is not None:
                _add(stats, client.stats)

    return asyncio.run(go())


def _add(total: RequestStats, part: RequestStats) -> None:
    total.requests += part.requests
    total.cache_hits += part.cache_hits
    total.retries += part.retries
    for reason, n in part.retry_reasons.items():
        total.retry_reasons[reason] = total.retry_reasons.get(reason, 0) + n
    total.shapes.update(part.shapes)
    total.models.update(part.models)
    total.fingerprints.update(part.fingerprints)
    total.served_fresh.update(part.served_fresh)
    total.served_cached.update(part.served_cached)

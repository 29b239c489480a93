"""The one place generation talks to models: today's runner pieces behind two calls.

`propose` sends chat messages (with a `response_format` where the server takes one) and
returns the answer's text; `verify` asks a case as `run` would (the FC backend's rendering
and name mapping, the same cache key, so a later `run` with the same model reuses the
answer). Both go through the runner's `ResponseCache` and `with_retries`, bounded by one
semaphore and one request budget. When the runner grows one message-level request path,
this module is what changes.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bfcl_action.fingerprint import canonical_json, sha256_hex
from bfcl_action.models import Mode, TestCase
from bfcl_action.runner.backends import (
    BackendOptions,
    ModelAnswer,
    PermanentError,
    TransientError,
    create_backend,
)
from bfcl_action.runner.cache import ResponseCache
from bfcl_action.runner.openai_common import (
    SharedClient,
    first_message,
    request_key,
    sampling_params,
    usage_answer,
)
from bfcl_action.runner.progress import NoProgress, Progress
from bfcl_action.runner.retry import InfraFailure, RetryPolicy, with_retries

T = TypeVar("T")


class BudgetExhausted(Exception):
    """`--max-requests` reached: this answer was not asked for."""


@dataclass
class Counters:
    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    structured_fallbacks: int = 0


@dataclass
class ProposeAnswer:
    content: str | None
    refusal: str | None


@dataclass
class ModelLink:
    """Proposer and verifier settings, the shared cache, budget and counters of one run."""

    proposer: BackendOptions
    verifier: BackendOptions
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    cache: ResponseCache | None = None
    max_requests: int | None = None
    structured: str = "auto"
    progress: Progress = field(default_factory=NoProgress)
    counters: Counters = field(default_factory=Counters)
    seed: int = 0

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)  # noqa: S311 - retry jitter only
        self._slots = asyncio.Semaphore(max(1, self.proposer.concurrency))
        self._client: SharedClient | None = None
        self._verify_backend: Any = None

    # ------------------------------------------------------------------ plumbing

    def _cached(self, key: str) -> ModelAnswer | None:
        if self.cache is None:
            return None
        hit = self.cache.get(key)
        if hit is not None:
            self.counters.cache_hits += 1
        return hit

    def _store(self, key: str, label: str, model: str, answer: ModelAnswer) -> None:
        if self.cache is not None:
            self.cache.put(key, case_id=label, model=model, answer=answer)

    async def _send(self, call: Callable[[], Awaitable[T]]) -> T:
        if self.max_requests is not None and self.counters.requests >= self.max_requests:
            raise BudgetExhausted(f"--max-requests {self.max_requests} reached")

        async def once() -> T:
            self.counters.requests += 1
            return await call()

        def on_retry(_exc: TransientError) -> None:
            self.counters.retries += 1

        async with self._slots:
            return await with_retries(once, self.policy, rng=self._rng, on_retry=on_retry)

    def _count_tokens(self, answer: ModelAnswer) -> None:
        self.counters.input_tokens += answer.input_tokens or 0
        self.counters.output_tokens += answer.output_tokens or 0

    # ------------------------------------------------------------------ propose

    def propose_key(self, messages: list[dict[str, Any]], response_format: dict[str, Any]) -> str:
        options = self.proposer
        wants_schema = self.structured != "off"
        return request_key(
            model=options.model,
            endpoint=options.base_url or "https://api.openai.com/v1",
            mode="generate-propose",
            messages_json=json.dumps(messages, sort_keys=True),
            functions_key=sha256_hex(canonical_json(response_format)) if wants_schema else "",
            params=sampling_params(options),
            sample=0,
        )

    def is_cached_proposal(
        self, messages: list[dict[str, Any]], response_format: dict[str, Any]
    ) -> bool:
        if self.cache is None:
            return False
        key = self.propose_key(messages, response_format)
        return self.cache.get(key) is not None

    async def propose(
        self, label: str, messages: list[dict[str, Any]], response_format: dict[str, Any]
    ) -> ProposeAnswer:
        """The proposer's answer to `messages`; raises `InfraFailure` or `BudgetExhausted`.

        The answer is cached under the structured request's key even when the server needed
        the plain-JSON fallback, so a rerun finds it without asking again.
        """
        key = self.propose_key(messages, response_format)
        hit = self._cached(key)
        if hit is not None:
            return _propose_answer(hit.output)
        client = self._shared_client()
        body: dict[str, Any] = {
            "model": self.proposer.model,
            "messages": messages,
            **sampling_params(self.proposer),
        }
        if self.structured != "off":
            body["response_format"] = response_format

        async def ask(payload: dict[str, Any]) -> ModelAnswer:
            start = time.perf_counter()
            data = await client.chat(payload)
            message = first_message(data)
            content = message.get("content")
            refusal = message.get("refusal")
            output = {
                "content": content if isinstance(content, str) else None,
                "refusal": refusal if isinstance(refusal, str) and refusal else None,
            }
            return usage_answer(data, output, time.perf_counter() - start)

        try:
            answer = await self._send(lambda: ask(body))
        except InfraFailure as exc:
            if self.structured != "auto" or "HTTP 400" not in str(exc):
                self.progress.advance(failed=True)
                raise
            self.counters.structured_fallbacks += 1
            plain = {k: v for k, v in body.items() if k != "response_format"}
            try:
                answer = await self._send(lambda: ask(plain))
            except (InfraFailure, BudgetExhausted):
                self.progress.advance(failed=True)
                raise
        except BudgetExhausted:
            self.progress.advance(failed=True)
            raise
        self._count_tokens(answer)
        self._store(key, label, self.proposer.model, answer)
        self.progress.advance()
        return _propose_answer(answer.output)

    def _shared_client(self) -> SharedClient:
        if self._client is None:
            self._client = SharedClient(self.proposer)
        return self._client

    # ------------------------------------------------------------------ verify

    def _verifier(self) -> Any:
        if self._verify_backend is None:
            self._verify_backend = create_backend(self.verifier)
        return self._verify_backend

    def is_cached_verification(self, case: TestCase) -> bool:
        if self.cache is None:
            return False
        request = self._verifier().build_request(case, 0)
        return request.cache_key is not None and self.cache.get(request.cache_key) is not None

    async def verify(self, case: TestCase) -> Any:
        """The verify model's answer to `case` in BFCL's FC result form, asked as `run` asks.

        Raises `InfraFailure` (no answer after retries) or `BudgetExhausted`."""
        backend = self._verifier()
        try:
            request = backend.build_request(case, 0)
        except PermanentError as exc:
            raise InfraFailure(str(exc), 0) from exc
        if request.cache_key is not None:
            hit = self._cached(request.cache_key)
            if hit is not None:
                return hit.output
        try:
            answer: ModelAnswer = await self._send(lambda: backend.send(request))
        except (InfraFailure, BudgetExhausted):
            self.progress.advance(failed=True)
            raise
        self._count_tokens(answer)
        if request.cache_key is not None:
            self._store(request.cache_key, case.id, self.verifier.model, answer)
        self.progress.advance()
        return answer.output

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
        if self._verify_backend is not None:
            await self._verify_backend.aclose()


def _propose_answer(output: Any) -> ProposeAnswer:
    data = output if isinstance(output, dict) else {"content": output}
    content = data.get("content")
    refusal = data.get("refusal")
    return ProposeAnswer(
        content if isinstance(content, str) else None,
        refusal if isinstance(refusal, str) else None,
    )


def verify_options(options: BackendOptions, model: str | None) -> BackendOptions:
    """The verifier: the run's settings in FC mode, with another model when given."""
    from dataclasses import replace

    return replace(options, model=model or options.model, mode=Mode.FC)

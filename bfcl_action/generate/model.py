"""The one place generation talks to models: the model layer's request path behind two calls.

`propose` sends chat messages with a `response_format` (where the server takes one) and
returns the answer's text; `verify` asks a case exactly as `run` asks it (the chat backend's
rendering, name mapping and cache key, so a later `run` of the same model reuses the
answer). Both go through `bfcl_action.model.request.ModelClient` (cache, retries,
concurrency, counters), sharing one cache, under one request budget.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from bfcl_action.core.records import Mode, TestCase
from bfcl_action.model.cache import ResponseCache
from bfcl_action.model.options import BackendOptions
from bfcl_action.model.request import ModelClient, open_client
from bfcl_action.model.retry import InfraFailure, RetryPolicy
from bfcl_action.model.types import ChatRequest, ChatResponse
from bfcl_action.runner.chat import ChatBackend
from bfcl_action.runner.progress import NoProgress, Progress


class BudgetExhausted(Exception):
    """`--max-requests` reached: this answer was not asked for."""


@dataclass
class Counters:
    requests: int = 0
    cache_hits: int = 0
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
    """Requests asked at most (first attempts; retries of one request are not counted)."""
    structured: str = "auto"
    progress: Progress = field(default_factory=NoProgress)
    seed: int = 0
    _asked: int = 0
    _fallbacks: int = 0
    _tokens: list[int] = field(default_factory=lambda: [0, 0])
    _propose_client: ModelClient | None = None
    _verify_backend: ChatBackend | None = None

    @property
    def counters(self) -> Counters:
        clients = [c for c in (self._propose_client, self._verify_client()) if c is not None]
        return Counters(
            requests=sum(c.stats.requests for c in clients),
            cache_hits=sum(c.stats.cache_hits for c in clients),
            input_tokens=self._tokens[0],
            output_tokens=self._tokens[1],
            structured_fallbacks=self._fallbacks,
        )

    # ------------------------------------------------------------------ plumbing

    def _reserve(self, client: ModelClient, request: ChatRequest) -> bool:
        """Whether `request` must be sent (not cached); raises `BudgetExhausted` when it
        must and the budget is spent."""
        if self.cache is not None and self.cache.get(client.key(request)) is not None:
            return False
        if self.max_requests is not None and self._asked >= self.max_requests:
            raise BudgetExhausted(f"--max-requests {self.max_requests} reached")
        self._asked += 1
        return True

    def _count(self, response: ChatResponse) -> None:
        if not response.cached:
            self._tokens[0] += response.input_tokens or 0
            self._tokens[1] += response.output_tokens or 0

    # ------------------------------------------------------------------ propose

    def _proposer(self) -> ModelClient:
        if self._propose_client is None:
            self._propose_client = open_client(self.proposer, cache=self.cache, policy=self.policy)
        return self._propose_client

    def propose_request(
        self, label: str, messages: list[dict[str, Any]], response_format: dict[str, Any]
    ) -> ChatRequest:
        fmt = response_format if self.structured != "off" else None
        return ChatRequest(list(messages), case_id=label, response_format=fmt)

    def is_cached_proposal(
        self, messages: list[dict[str, Any]], response_format: dict[str, Any]
    ) -> bool:
        if self.cache is None:
            return False
        request = self.propose_request("", messages, response_format)
        return self.cache.get(self._proposer().key(request)) is not None

    async def propose(
        self, label: str, messages: list[dict[str, Any]], response_format: dict[str, Any]
    ) -> ProposeAnswer:
        """The proposer's answer to `messages`; raises `InfraFailure` or `BudgetExhausted`.

        A server that answers 400 to the structured request is asked again without it
        (`structured="auto"`); that answer is also cached under the structured request's key,
        so a rerun finds it without asking again.
        """
        client = self._proposer()
        request = self.propose_request(label, messages, response_format)
        sent = False
        try:
            sent = self._reserve(client, request)
            try:
                response = await client.generate(request)
            except InfraFailure as exc:
                if self.structured != "auto" or "HTTP 400" not in str(exc):
                    raise
                self._fallbacks += 1
                plain = dataclasses.replace(request, response_format=None)
                self._reserve(client, plain)
                response = await client.generate(plain)
                if self.cache is not None:
                    self.cache.put(
                        client.key(request), case_id=label, model=client.model, answer=response
                    )
        except (InfraFailure, BudgetExhausted):
            if sent:
                self.progress.advance(failed=True)
            raise
        self._count(response)
        if sent:
            self.progress.advance()
        return ProposeAnswer(response.content or None, response.refusal)

    # ------------------------------------------------------------------ verify

    def _verifier(self) -> ChatBackend:
        if self._verify_backend is None:
            client = open_client(self.verifier, cache=self.cache, policy=self.policy)
            self._verify_backend = ChatBackend(client, Mode.FC)
        return self._verify_backend

    def _verify_client(self) -> ModelClient | None:
        return self._verify_backend.client if self._verify_backend is not None else None

    def is_cached_verification(self, case: TestCase) -> bool:
        if self.cache is None:
            return False
        backend = self._verifier()
        request, _ = backend.request(case, 0)
        return self.cache.get(backend.client.key(request)) is not None

    async def verify(self, case: TestCase) -> Any:
        """The verify model's answer to `case` in BFCL's FC result form, asked as `run` asks.

        Raises `InfraFailure` (no answer after retries) or `BudgetExhausted`."""
        backend = self._verifier()
        request, _ = backend.request(case, 0)
        sent = self._reserve(backend.client, request)
        try:
            answer = await backend.answer(case, 0)
        except InfraFailure:
            self.progress.advance(failed=True)
            raise
        if sent:
            self._tokens[0] += answer.input_tokens or 0
            self._tokens[1] += answer.output_tokens or 0
            self.progress.advance()
        return answer.output

    async def aclose(self) -> None:
        if self._propose_client is not None:
            await self._propose_client.aclose()
        if self._verify_backend is not None:
            await self._verify_backend.aclose()


def verify_options(options: BackendOptions, model: str | None) -> BackendOptions:
    """The verifier: the run's settings in FC mode, with another model when given."""
    return dataclasses.replace(options, model=model or options.model, mode=Mode.FC)

"""Asking a chat model for a case's answer: one request for a single-turn case, the
conversation loop for a multi-turn one. Both go through the same `ModelClient`."""

from __future__ import annotations

from bfcl_action.core.categories import is_multi_turn
from bfcl_action.core.records import Mode, TestCase
from bfcl_action.model.forms import case_request, fc_output, prompt_output
from bfcl_action.model.render import FunctionRenderer, RenderedFunctions
from bfcl_action.model.request import ModelClient
from bfcl_action.model.types import ChatRequest, RequestStats
from bfcl_action.multiturn.check import ExecutionOptions
from bfcl_action.multiturn.driver import run_conversation
from bfcl_action.runner.answer import ModelAnswer


class ChatBackend:
    """FC or prompt mode over any provider of the model layer."""

    def __init__(
        self, client: ModelClient, mode: Mode, *, multi_turn: ExecutionOptions | None = None
    ) -> None:
        self.client = client
        self.model = client.model
        self.mode = mode
        self.renderer = FunctionRenderer()
        self.multi_turn = multi_turn or ExecutionOptions()
        self._prompts: dict[str, str] = {}

    @property
    def stats(self) -> RequestStats:
        return self.client.stats

    def request(self, case: TestCase, sample: int) -> tuple[ChatRequest, RenderedFunctions]:
        """Pure: the request for one sample of a single-turn case."""
        return case_request(case, self.mode, self.renderer, sample, self._prompts)

    async def answer(self, case: TestCase, sample: int) -> ModelAnswer:
        if is_multi_turn(case.category):
            conversation = await run_conversation(
                case,
                client=self.client,
                mode=self.mode,
                renderer=self.renderer,
                execution=self.multi_turn,
                sample=sample,
            )
            return ModelAnswer(
                output=conversation.output,
                input_tokens=conversation.input_tokens,
                output_tokens=conversation.output_tokens,
                cached_tokens=conversation.cached_tokens,
                latency_s=conversation.latency_s,
                served_model=conversation.served_model,
                system_fingerprint=conversation.system_fingerprint,
                cached=conversation.cached,
            )
        request, rendered = self.request(case, sample)
        response = await self.client.generate(request)
        output = (
            fc_output(response, rendered.names) if self.mode is Mode.FC else prompt_output(response)
        )
        return ModelAnswer(
            output=output,
            input_tokens=response.input_tokens,
            output_tokens=response.output_tokens,
            cached_tokens=response.cached_tokens,
            batch=response.batch,
            latency_s=response.latency_s,
            served_model=response.model,
            system_fingerprint=response.system_fingerprint,
            cached=response.cached,
        )

    async def aclose(self) -> None:
        await self.client.aclose()

"""Asking a chat model for a case's answer: one request for a single-turn case, the
conversation loop for a multi-turn one. Both go through the same `ModelClient`."""

from __future__ import annotations

from collections.abc import Mapping

from bfcl_action.checker.variants import PromptTemplates
from bfcl_action.core.categories import CATEGORIES, is_multi_turn
from bfcl_action.core.errors import DatasetError
from bfcl_action.core.records import Mode, TestCase
from bfcl_action.model.forms import case_request, fc_output, prompt_output
from bfcl_action.model.render import FunctionRenderer, RenderedFunctions
from bfcl_action.model.request import ModelClient
from bfcl_action.model.types import ChatRequest, PermanentError, RequestStats
from bfcl_action.multiturn.check import ExecutionOptions
from bfcl_action.multiturn.driver import run_conversation
from bfcl_action.runner.answer import ModelAnswer


class ChatBackend:
    """FC or prompt mode over any provider of the model layer."""

    def __init__(
        self,
        client: ModelClient,
        mode: Mode,
        *,
        multi_turn: ExecutionOptions | None = None,
        prompt_templates: Mapping[str, PromptTemplates] | None = None,
    ) -> None:
        self.client = client
        self.model = client.model
        self.mode = mode
        self.renderer = FunctionRenderer()
        self.multi_turn = multi_turn or ExecutionOptions()
        self._prompts: dict[str, str] = {}
        self._templates: dict[str, PromptTemplates | str] = dict(prompt_templates or {})
        """Format-sensitivity prompt texts per dataset spec (or why there are none), read
        from the official release on the first such case."""

    @property
    def stats(self) -> RequestStats:
        return self.client.stats

    def request(self, case: TestCase, sample: int) -> tuple[ChatRequest, RenderedFunctions]:
        """The request for one sample of a single-turn case (pure, but for reading a
        format-sensitivity case's prompt texts from the data cache once per dataset)."""
        templates = self.variant_templates(case)
        return case_request(case, self.mode, self.renderer, sample, self._prompts, templates)

    def variant_templates(self, case: TestCase) -> PromptTemplates | None:
        """The prompt texts a format-sensitivity case's system prompt is built from (None
        for any other case); `PermanentError` when its release's texts cannot be read."""
        category = CATEGORIES.get(case.category)
        if category is None or not category.prompt_variants or self.mode is not Mode.PROMPT:
            return None
        found = self._templates.get(case.dataset)
        if found is None:
            from bfcl_action.dataset.official import prompt_templates_for

            try:
                found = prompt_templates_for(case.dataset)
            except DatasetError as exc:
                found = str(exc)
            self._templates[case.dataset] = found
        if isinstance(found, str):
            raise PermanentError(f"{case.id}: {found}")
        return found

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

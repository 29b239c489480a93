"""Driving a model through a multi-turn case over the OpenAI Chat Completions API.

The loop follows BFCL's inference (read, not copied): each user turn opens with its messages
(a turn that only adds functions says so, and the tools are re-rendered); within a turn the
model is asked again and again, its calls run in the sandbox and the results go back (FC:
one `tool` message per call; prompt: one user message listing the results) until a step
carries no call; more than `MAX_STEPS` steps in one turn ends the whole conversation
(force-terminated). Every step is one request through the runner's shared client, its
retries and its response cache (keyed by the whole message history), so a rerun replays a
conversation from the cache without asking the model again.

The result is BFCL's multi-turn result form: one list per turn of the raw step outputs
(FC `[{name: "<json args>"}]` or text), which `check_conversation` judges.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass
from typing import Any

from bfcl_action.models import Language, Mode, TestCase
from bfcl_action.multiturn.check import ExecutionOptions, decode_step
from bfcl_action.multiturn.conversation import (
    ADDED_FUNCTIONS_PROMPT,
    MAX_STEPS,
    conversation_of,
    turn_messages,
)
from bfcl_action.multiturn.sandbox import EnvironmentSetupError, Sandbox
from bfcl_action.runner.backends import ModelAnswer, PermanentError
from bfcl_action.runner.cache import ResponseCache
from bfcl_action.runner.openai_common import (
    SharedClient,
    first_message,
    request_key,
)
from bfcl_action.runner.openai_fc import fc_output
from bfcl_action.runner.openai_prompt import PROMPT_KEY, system_prompt, with_system_prompt
from bfcl_action.runner.render import FunctionRenderer, RenderedFunctions
from bfcl_action.runner.retry import InfraFailure, RetryPolicy, with_retries

SIDE = "model"


@dataclass
class ConversationSettings:
    """What a backend needs besides its client to run conversations (set by the pipeline)."""

    execution: ExecutionOptions
    cache: ResponseCache | None = None
    policy: RetryPolicy | None = None


@dataclass
class _Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    requests: int = 0
    cached: int = 0


class ConversationDriver:
    """One conversation: messages so far, the sandboxed environments, per-step requests."""

    def __init__(
        self,
        case: TestCase,
        *,
        model: str,
        mode: Mode,
        client: SharedClient,
        params: dict[str, Any],
        renderer: FunctionRenderer,
        settings: ConversationSettings,
        sample: int,
    ) -> None:
        self.case = case
        self.conversation = conversation_of(case)
        self.model = model
        self.mode = mode
        self.client = client
        self.params = params
        self.renderer = renderer
        self.settings = settings
        self.sample = sample
        self.usage = _Usage()
        self.messages: list[dict[str, Any]] = []
        self.rng = random.Random(f"{case.id}:{sample}")  # noqa: S311 - retry jitter only

    async def run(self) -> ModelAnswer:
        conversation = self.conversation
        turns: list[list[Any]] = []
        sandbox = self.settings.execution.sandbox(conversation.paths)
        try:
            await asyncio.to_thread(
                sandbox.init,
                SIDE,
                conversation.environments,
                long_context=conversation.long_context,
            )
            for index in range(len(conversation.turns)):
                rendered = self.renderer.render(conversation.functions_at(index), Language.PYTHON)
                self._open_turn(index, rendered)
                steps, force_quit = await self._turn(sandbox, rendered)
                turns.append(steps)
                if force_quit:
                    break
        except EnvironmentSetupError as exc:
            raise PermanentError(f"environment setup failed: {exc.message}") from None
        finally:
            await asyncio.to_thread(sandbox.close)
        return ModelAnswer(
            output=turns,
            input_tokens=self.usage.input_tokens,
            output_tokens=self.usage.output_tokens,
            latency_s=round(self.usage.latency_s, 4),
        )

    def _open_turn(self, index: int, rendered: RenderedFunctions) -> None:
        opening = turn_messages(self.conversation, index)
        if self.mode is Mode.PROMPT:
            if index == 0:
                opening = with_system_prompt(opening, system_prompt(rendered.docs_json))
            elif not self.conversation.turns[index] and index in self.conversation.added_functions:
                added = self.renderer.render(
                    self.conversation.added_functions[index], Language.PYTHON
                )
                opening = [
                    {"role": "user", "content": f"{added.docs_json}\n{ADDED_FUNCTIONS_PROMPT}"}
                ]
        self.messages.extend(opening)

    async def _turn(self, sandbox: Sandbox, rendered: RenderedFunctions) -> tuple[list[Any], bool]:
        steps: list[Any] = []
        count = 0
        while True:
            message = await self._ask(rendered)
            output = (
                fc_output(message, rendered.names)
                if self.mode is Mode.FC
                else (message.get("content") if isinstance(message.get("content"), str) else "")
            )
            steps.append(output)
            self.messages.append(_assistant_message(message, self.mode))
            calls = decode_step(output, self.mode)
            if not calls:
                return steps, False
            results = [
                await asyncio.to_thread(sandbox.call, SIDE, call.name, (), dict(call.arguments))
                for call in calls
            ]
            self.messages.extend(_result_messages(message, calls, results, self.mode))
            count += 1
            if count > MAX_STEPS:
                return steps, True

    async def _ask(self, rendered: RenderedFunctions) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": list(self.messages), **self.params}
        if self.mode is Mode.FC and rendered.tools:
            body["tools"] = rendered.tools
        key = request_key(
            model=self.model,
            endpoint=self.client.endpoint,
            mode=self.mode.value if self.mode is Mode.FC else PROMPT_KEY,
            messages_json=json.dumps(self.messages, sort_keys=True),
            functions_key="multi_turn:" + rendered.key,
            params=self.params,
            sample=self.sample,
        )
        cache = self.settings.cache
        if cache is not None:
            hit = cache.get(key)
            if hit is not None and isinstance(hit.output, dict):
                self.usage.cached += 1
                self._count(hit)
                return hit.output
        start = time.perf_counter()

        async def ask() -> tuple[dict[str, Any], dict[str, Any]]:
            data = await self.client.chat(body)
            return data, first_message(data)  # no choices: transient, retried like a 5xx

        try:
            data, message = await with_retries(
                ask, self.settings.policy or RetryPolicy(), rng=self.rng
            )
        except InfraFailure as exc:
            raise PermanentError(f"step request failed: {exc}") from None
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        assert isinstance(usage, dict)
        answer = ModelAnswer(
            output=message,
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
            latency_s=round(time.perf_counter() - start, 4),
        )
        self.usage.requests += 1
        self._count(answer)
        if cache is not None:
            cache.put(key, case_id=self.case.id, model=self.model, answer=answer)
        return message

    def _count(self, answer: ModelAnswer) -> None:
        self.usage.input_tokens += answer.input_tokens or 0
        self.usage.output_tokens += answer.output_tokens or 0
        self.usage.latency_s += answer.latency_s or 0.0


def _assistant_message(message: dict[str, Any], mode: Mode) -> dict[str, Any]:
    """The assistant message as it goes back into the history (only fields the API takes)."""
    content = message.get("content")
    kept: dict[str, Any] = {
        "role": "assistant",
        "content": content if isinstance(content, str) else "",
    }
    calls = message.get("tool_calls")
    if mode is Mode.FC and isinstance(calls, list) and calls:
        kept["tool_calls"] = calls
    return kept


def _result_messages(
    message: dict[str, Any], calls: list[Any], results: list[str], mode: Mode
) -> list[dict[str, Any]]:
    if mode is Mode.FC:
        ids = [
            str(c.get("id", f"call_{i}"))
            for i, c in enumerate(message.get("tool_calls") or [])
            if isinstance(c, dict) and isinstance(c.get("function"), dict)
        ]
        ids += [f"call_{i}" for i in range(len(ids), len(results))]
        return [
            {"role": "tool", "tool_call_id": call_id, "content": result}
            for call_id, result in zip(ids, results, strict=False)
        ]
    listed = [
        {"role": "tool", "name": call.name, "content": result}
        for call, result in zip(calls, results, strict=True)
    ]
    return [{"role": "user", "content": repr(listed)}]


async def run_conversation(
    case: TestCase,
    *,
    model: str,
    mode: Mode,
    client: SharedClient,
    params: dict[str, Any],
    renderer: FunctionRenderer,
    settings: ConversationSettings,
    sample: int = 0,
) -> ModelAnswer:
    """Ask the model through every turn of `case`; raises `PermanentError` on infra failure."""
    driver = ConversationDriver(
        case,
        model=model,
        mode=mode,
        client=client,
        params=params,
        renderer=renderer,
        settings=settings,
        sample=sample,
    )
    return await driver.run()


__all__ = ["ConversationDriver", "ConversationSettings", "run_conversation"]

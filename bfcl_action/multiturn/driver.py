"""Driving a model through a multi-turn case: the conversation loop above the request path.

The loop follows BFCL's inference (read, not copied): each user turn opens with its messages
(a turn that only adds functions says so, and the tools are re-rendered); within a turn the
model is asked again and again, its calls run in the sandbox and the results go back (FC:
one `tool` message per call; prompt: one user message listing the results) until a step
carries no call; more than `MAX_STEPS` steps in one turn ends the whole conversation
(force-terminated).

Every step is one `ModelClient.generate` call, the same path a single-turn case takes: the
response cache (keyed by the whole history, so a rerun replays a conversation without asking
the model), retries, the concurrency bound and the run's request counters all see it.

In FC mode every tool call gets a reply before the next request (APIs answer 400 otherwise):
a call whose arguments do not parse gets the parse error as its result, and since BFCL then
counts the step as carrying no call, the turn ends there, as upstream.

The result is BFCL's multi-turn result form: one list per turn of the raw step outputs
(FC `[{name: "<json args>"}]` or text), which `check_conversation` judges.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from bfcl_action.core.records import Call, Language, Mode, TestCase
from bfcl_action.decode import decode_step
from bfcl_action.model.forms import fc_output, prompt_output, system_prompt, with_system_prompt
from bfcl_action.model.render import FunctionRenderer, RenderedFunctions
from bfcl_action.model.request import ModelClient
from bfcl_action.model.retry import InfraFailure
from bfcl_action.model.types import ChatRequest, ChatResponse, Message, PermanentError
from bfcl_action.multiturn.check import ExecutionOptions
from bfcl_action.multiturn.conversation import (
    ADDED_FUNCTIONS_PROMPT,
    MAX_STEPS,
    conversation_of,
    turn_messages,
)
from bfcl_action.safety.sandbox import Sandbox, SandboxError

SIDE = "model"


@dataclass
class ConversationAnswer:
    """The conversation's result with usage summed over its steps."""

    output: list[list[Any]]
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    steps: int = 0
    cached_steps: int = 0
    served_model: str | None = None
    system_fingerprint: str | None = None

    @property
    def cached(self) -> bool:
        return self.steps > 0 and self.cached_steps == self.steps


class ConversationDriver:
    """One conversation: messages so far, the sandboxed environments, one request per step."""

    def __init__(
        self,
        case: TestCase,
        *,
        client: ModelClient,
        mode: Mode,
        renderer: FunctionRenderer,
        execution: ExecutionOptions,
        sample: int,
    ) -> None:
        self.case = case
        self.conversation = conversation_of(case)
        self.client = client
        self.mode = mode
        self.renderer = renderer
        self.execution = execution
        self.sample = sample
        self.messages: list[Message] = []
        self.answer = ConversationAnswer(output=[])

    async def run(self) -> ConversationAnswer:
        conversation = self.conversation
        sandbox = self.execution.sandbox(conversation.paths)
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
                self.answer.output.append(steps)
                if force_quit:
                    break
        except SandboxError as exc:
            raise PermanentError(f"sandbox failed: {exc.message}") from None
        finally:
            await asyncio.to_thread(sandbox.close)
        self.answer.latency_s = round(self.answer.latency_s, 4)
        return self.answer

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
            response = await self._ask(rendered)
            if self.mode is Mode.FC:
                output = fc_output(response, rendered.names)
                self.messages.append(response.assistant_message())
            else:
                output = prompt_output(response)
                self.messages.append({"role": "assistant", "content": response.content})
            steps.append(output)
            calls = decode_step(output, self.mode)
            results = [
                await asyncio.to_thread(sandbox.call, SIDE, call.name, (), dict(call.arguments))
                for call in calls
            ]
            if self.mode is Mode.FC:
                self.messages.extend(tool_replies(response, calls, results))
            elif calls:
                self.messages.append(prompt_results(calls, results))
            if not calls:
                return steps, False
            count += 1
            if count > MAX_STEPS:
                return steps, True

    async def _ask(self, rendered: RenderedFunctions) -> ChatResponse:
        fc = self.mode is Mode.FC
        request = ChatRequest(
            messages=list(self.messages),
            tools=rendered.tools if fc else [],
            tools_key=rendered.key if fc else "",
            sample=self.sample,
            case_id=self.case.id,
        )
        try:
            response = await self.client.generate(request)
        except InfraFailure as exc:
            raise InfraFailure(f"step request failed: {exc}", exc.attempts) from None
        if self.answer.steps == 0:
            self.answer.served_model = response.model
            self.answer.system_fingerprint = response.system_fingerprint
        self.answer.steps += 1
        self.answer.cached_steps += int(response.cached)
        self.answer.input_tokens += response.input_tokens or 0
        self.answer.cached_tokens += response.cached_tokens or 0
        self.answer.output_tokens += response.output_tokens or 0
        self.answer.latency_s += response.latency_s or 0.0
        return response


def tool_replies(response: ChatResponse, calls: list[Call], results: list[str]) -> list[Message]:
    """One `tool` message per tool call of the step, in order. When the step's calls could
    not all be decoded none ran (BFCL counts the step as no call): each call whose arguments
    do not parse gets the parse error, the others say they were not run."""
    replies: list[Message] = []
    ran = len(calls) == len(response.tool_calls)
    for index, call in enumerate(response.tool_calls):
        if ran:
            content = results[index]
        else:
            problem = arguments_problem(_sent_arguments(response, index))
            content = (
                f"Error: could not parse the arguments of {call.name}: {problem}"
                if problem
                else "Error: not run, because another call in this step could not be parsed."
            )
        replies.append(
            {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": content}
        )
    return replies


def _sent_arguments(response: ChatResponse, index: int) -> str:
    """The arguments of call `index` as the server sent them (before `""` became `{}`)."""
    fn = response.raw_tool_calls[index].get("function") or {}
    raw = fn.get("arguments")
    return raw if isinstance(raw, str) else json.dumps(raw)


def arguments_problem(arguments: str) -> str | None:
    """Why a call's argument text is not a JSON object, or None when it is one."""
    try:
        value = json.loads(arguments)
    except ValueError as exc:
        return f"not JSON ({exc})"
    return None if isinstance(value, dict) else f"expected a JSON object, found {arguments!r}"


def prompt_results(calls: list[Call], results: list[str]) -> Message:
    """Prompt mode: the results of the step's calls in one user message, as BFCL sends them."""
    listed = [
        {"role": "tool", "name": call.name, "content": result}
        for call, result in zip(calls, results, strict=True)
    ]
    return {"role": "user", "content": repr(listed)}


async def run_conversation(
    case: TestCase,
    *,
    client: ModelClient,
    mode: Mode,
    renderer: FunctionRenderer,
    execution: ExecutionOptions,
    sample: int = 0,
) -> ConversationAnswer:
    """Ask the model through every turn of `case`; raises `InfraFailure`/`PermanentError`
    when the case gets no answer and `EndpointError` when the run must stop."""
    driver = ConversationDriver(
        case, client=client, mode=mode, renderer=renderer, execution=execution, sample=sample
    )
    return await driver.run()


__all__ = ["ConversationAnswer", "ConversationDriver", "run_conversation", "tool_replies"]

"""Prompt mode: a BFCL-style system prompt lists the functions; the answer is call text.

The instruction text is our own wording of what BFCL's default prompt asks for (persona,
task, "only the calls, in `[f(a=1), g(b=2)]` form", multi-turn behaviour, then the functions
as indented JSON). As upstream, a case's own system message is appended after ours.
"""

from __future__ import annotations

import json
import time
from typing import Any

from bfcl_action.fingerprint import sha256_hex
from bfcl_action.models import Mode, TestCase
from bfcl_action.runner.backends import BackendOptions, ModelAnswer, ModelRequest
from bfcl_action.runner.messages import (
    ConversationHook,
    conversation_request,
    first_turn_messages,
    is_conversation_request,
    is_multi_turn,
)
from bfcl_action.runner.openai_common import (
    SharedClient,
    first_message,
    request_key,
    sampling_params,
    usage_answer,
)
from bfcl_action.runner.render import FunctionRenderer

SYSTEM_PROMPT = """\
You are an expert at composing function calls. You receive a question and a list of \
functions you may call. Decide which call or calls, with which arguments, achieve what the \
question asks. If none of the functions fits, say so. If the question does not give the \
arguments a function requires, say so too.
You should only return the function calls in your response.

If you decide to call any of the functions, you MUST use the format \
[func_name1(param_name1=param_value1, param_name2=param_value2...), func_name2(params)]
You SHOULD NOT include any other text in the response.

At each turn, do your best to complete the tasks the user asks for within that turn. Keep \
returning function calls until you have fulfilled the request as well as you can. When you \
have no more functions to call, the turn is considered complete and the next turn or task \
begins.

Here is a list of functions in JSON format that you can invoke.
{functions}
"""


PROMPT_KEY = "prompt:" + sha256_hex(SYSTEM_PROMPT)[:12]
"""Cache-key mode for prompt requests: editing the instruction text re-asks every case."""


def system_prompt(functions_json: str) -> str:
    return SYSTEM_PROMPT.format(functions=functions_json)


def with_system_prompt(messages: list[dict[str, Any]], prompt: str) -> list[dict[str, Any]]:
    """Our prompt first; a case's own system message is kept, appended after it."""
    if messages and messages[0].get("role") == "system":
        first = dict(messages[0])
        first["content"] = prompt + "\n\n" + str(first.get("content") or "")
        return [first, *messages[1:]]
    return [{"role": "system", "content": prompt}, *messages]


class OpenAIPrompt:
    """`--mode prompt` against any OpenAI-compatible Chat Completions endpoint."""

    mode = Mode.PROMPT

    def __init__(self, options: BackendOptions, client: SharedClient | None = None) -> None:
        self.model = options.model
        self.client = client or SharedClient(options)
        self.params = sampling_params(options)
        self.renderer = FunctionRenderer()
        self.conversations = ConversationHook()
        self._prompts: dict[str, str] = {}

    def _prompt_for(self, key: str, docs_json: str) -> str:
        prompt = self._prompts.get(key)
        if prompt is None:
            prompt = self._prompts[key] = system_prompt(docs_json)
        return prompt

    def build_request(self, case: TestCase, sample: int) -> ModelRequest:
        if is_multi_turn(case):
            return conversation_request(case, sample)
        question = first_turn_messages(case)
        rendered = self.renderer.render(case.functions, case.language)
        messages = with_system_prompt(question, self._prompt_for(rendered.key, rendered.docs_json))
        body: dict[str, Any] = {"model": self.model, "messages": messages, **self.params}
        key = request_key(
            model=self.model,
            endpoint=self.client.endpoint,
            mode=PROMPT_KEY,
            messages_json=json.dumps(question, sort_keys=True),
            functions_key=rendered.key,
            params=self.params,
            sample=sample,
        )
        return ModelRequest(case.id, sample, body, key)

    async def send(self, request: ModelRequest) -> ModelAnswer:
        if is_conversation_request(request):
            return await self.conversations.run(self, request)
        start = time.perf_counter()
        data = await self.client.chat(request.body)
        content = first_message(data).get("content")
        text = content if isinstance(content, str) else ""
        return usage_answer(data, text, time.perf_counter() - start)

    async def aclose(self) -> None:
        await self.client.aclose()

"""Native function calling: functions go as `tools`, answers come back as `tool_calls`."""

from __future__ import annotations

import json
import time
from typing import Any

from bfcl_action.models import Mode, TestCase
from bfcl_action.runner.backends import BackendOptions, ModelAnswer, ModelRequest
from bfcl_action.runner.messages import (
    ConversationHook,
    conversation_request,
    first_turn_messages,
    is_conversation_request,
    is_multi_turn,
)
from bfcl_action.runner.naming import NameMap
from bfcl_action.runner.openai_common import (
    SharedClient,
    first_message,
    request_key,
    sampling_params,
    usage_answer,
)
from bfcl_action.runner.render import FunctionRenderer


def fc_output(message: dict[str, Any], names: NameMap) -> Any:
    """BFCL's FC result form: `[{original_name: "<json args>"}]`, or the text if no calls.

    Names are mapped back to the offered functions' names, so the result file is checked
    against the possible answers without any per-model `underscore_to_dot` flag.
    """
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        out: list[dict[str, Any]] = []
        for call in calls:
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(fn, dict):
                continue
            args = fn.get("arguments")
            if not isinstance(args, str):
                args = json.dumps(args)
            out.append({names.original(str(fn.get("name", ""))): args})
        return out
    content = message.get("content")
    return content if isinstance(content, str) else ""


class OpenAIFunctionCalling:
    """`--mode fc` against any OpenAI-compatible Chat Completions endpoint."""

    mode = Mode.FC

    def __init__(self, options: BackendOptions, client: SharedClient | None = None) -> None:
        self.model = options.model
        self.client = client or SharedClient(options)
        self.params = sampling_params(options)
        self.renderer = FunctionRenderer()
        self.conversations = ConversationHook()

    def build_request(self, case: TestCase, sample: int) -> ModelRequest:
        if is_multi_turn(case):
            return conversation_request(case, sample)
        messages = first_turn_messages(case)
        rendered = self.renderer.render(case.functions, case.language)
        body: dict[str, Any] = {"model": self.model, "messages": messages, **self.params}
        if rendered.tools:
            body["tools"] = rendered.tools
        key = request_key(
            model=self.model,
            endpoint=self.client.endpoint,
            mode=self.mode.value,
            messages_json=json.dumps(messages, sort_keys=True),
            functions_key=rendered.key,
            params=self.params,
            sample=sample,
        )
        return ModelRequest(case.id, sample, body, key, context=rendered.names)

    async def send(self, request: ModelRequest) -> ModelAnswer:
        if is_conversation_request(request):
            return await self.conversations.run(self, request)
        start = time.perf_counter()
        data = await self.client.chat(request.body)
        message = first_message(data)
        names = request.context if isinstance(request.context, NameMap) else NameMap()
        return usage_answer(data, fc_output(message, names), time.perf_counter() - start)

    async def aclose(self) -> None:
        await self.client.aclose()

"""The local OpenAI-compatible server held to OpenAI's own types (the `openai` SDK's).

Requests are checked against the SDK's request parameter types (`CompletionCreateParams`:
known top-level keys only, each message a `ChatCompletionMessageParam`, each tool a
`ChatCompletionToolUnionParam`); responses against its response model (`ChatCompletion`).
The SDK's types are generated from OpenAI's API specification, so a field the fake invents,
drops or types wrongly fails the test that used it. Replies a test scripts on purpose as a
non-OpenAI shape (`{"message": ...}`: vLLM's object arguments, legacy `function_call`, ...)
and injected faults are not OpenAI's and are not checked.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from openai.types.chat import (
    ChatCompletion,
    ChatCompletionMessageParam,
    ChatCompletionToolUnionParam,
)
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from pydantic import TypeAdapter, ValidationError


@cache
def _adapters() -> tuple[TypeAdapter[Any], TypeAdapter[Any], TypeAdapter[Any]]:
    return (
        TypeAdapter(CompletionCreateParamsNonStreaming),
        TypeAdapter(ChatCompletionMessageParam),
        TypeAdapter(ChatCompletionToolUnionParam),
    )


KNOWN_KEYS = frozenset(CompletionCreateParamsNonStreaming.__annotations__)


def _errors(what: str, exc: ValidationError) -> list[str]:
    return [
        f"{what} at {'.'.join(str(p) for p in e['loc']) or '(top)'}: {e['msg']}"
        for e in exc.errors()[:3]
    ]


def request_problems(body: Any) -> list[str]:
    """What in a chat-completions request body OpenAI's types do not allow."""
    params, message, tool = _adapters()
    if not isinstance(body, dict):
        return ["request: not a JSON object"]
    out = [f"request: unknown parameter {k!r}" for k in sorted(set(body) - KNOWN_KEYS)]
    try:
        params.validate_python({**body, "messages": [], "tools": []})
    except ValidationError as exc:
        out += _errors("request", exc)
    for i, item in enumerate(body.get("messages") or []):
        try:
            message.validate_python(item)
        except ValidationError as exc:
            out += _errors(f"request message {i} ({item.get('role')!r})", exc)[:1]
    for i, item in enumerate(body.get("tools") or []):
        try:
            tool.validate_python(item)
        except ValidationError as exc:
            out += _errors(f"request tool {i}", exc)[:1]
    return out


def response_problems(payload: bytes) -> list[str]:
    """What in a 200 reply OpenAI's `ChatCompletion` does not allow."""
    try:
        ChatCompletion.model_validate(json.loads(payload))
    except ValueError as exc:
        if isinstance(exc, ValidationError):
            return _errors("response", exc)
        return [f"response: not JSON ({exc})"]
    return []

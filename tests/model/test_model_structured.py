"""Structured output through the model layer: the format reaches the wire and the cache key,
and a refusal comes back (what `bfcl-action generate` relies on)."""

from __future__ import annotations

from bfcl_action.core.records import Mode
from bfcl_action.model.options import BackendOptions
from bfcl_action.model.providers.openai import OpenAIProvider, read_message
from bfcl_action.model.request import request_key
from bfcl_action.model.types import ChatRequest, ChatResponse

FORMAT = {"type": "json_schema", "json_schema": {"name": "x", "strict": False, "schema": {}}}
IDENTITY = {"endpoint": "http://127.0.0.1/v1", "model": "m", "params": {}}


def test_a_response_format_changes_the_cache_key_and_none_keeps_it() -> None:
    plain = ChatRequest([{"role": "user", "content": "hi"}])
    structured = ChatRequest([{"role": "user", "content": "hi"}], response_format=FORMAT)
    assert request_key(IDENTITY, plain) != request_key(IDENTITY, structured)
    assert request_key(IDENTITY, plain) == request_key(
        IDENTITY, ChatRequest([{"role": "user", "content": "hi"}], response_format=None)
    )


def test_the_openai_body_carries_the_response_format_only_when_asked() -> None:
    provider = OpenAIProvider(
        BackendOptions(model="m", mode=Mode.FC, base_url="http://127.0.0.1:9/v1")
    )
    messages = [{"role": "user", "content": "hi"}]
    assert "response_format" not in provider.body(ChatRequest(messages))
    assert provider.body(ChatRequest(messages, response_format=FORMAT))["response_format"] == FORMAT


def test_a_refusal_is_read_and_survives_the_cache_round_trip() -> None:
    data = {"choices": [{"message": {"role": "assistant", "content": None, "refusal": "No."}}]}
    response = read_message(data, set(), 0.0)
    assert response.refusal == "No."
    assert ChatResponse.from_json(response.to_json()).refusal == "No."
    assert (
        "refusal"
        not in read_message({"choices": [{"message": {"content": "ok"}}]}, set(), 0.0).to_json()
    )

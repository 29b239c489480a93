"""The local OpenAI-compatible server and its client are held to the openai SDK's types."""

from __future__ import annotations

import json

import pytest
from openai import OpenAI

from tests.support.openai_server import OpenAIServer
from tests.support.openai_spec import request_problems, response_problems

TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}


def test_an_unknown_or_mistyped_request_parameter_is_drift() -> None:
    problems = request_problems(
        {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_token": 5}
    )
    assert problems == ["request: unknown parameter 'max_token'"]
    assert request_problems({"model": "m", "messages": [], "temperature": "hot"})


def test_a_tool_message_without_its_call_id_is_drift() -> None:
    [problem] = request_problems({"model": "m", "messages": [{"role": "tool", "content": "x"}]})
    assert problem.startswith("request message 0 ('tool')")


def test_object_arguments_are_not_openais_shape() -> None:
    reply = {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "c", "type": "function", "function": {"name": "f", "arguments": {}}}
                    ],
                },
            }
        ],
    }
    assert any("arguments" in p for p in response_problems(json.dumps(reply).encode()))


def test_every_standard_exchange_is_recorded_and_conforms() -> None:
    with OpenAIServer() as server:
        server.script["weather"] = {"tool_calls": [{"name": "f", "arguments": {"a": 1}}]}
        client = OpenAI(base_url=server.base_url, api_key="k", max_retries=0)
        client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "weather?"}], tools=[TOOL]
        )
        assert len(server.exchanges) == 1
        assert server.spec_problems() == []


def test_a_drifting_exchange_fails_the_test_that_used_the_server() -> None:
    with (
        pytest.raises(AssertionError, match="drifted from OpenAI's types"),
        OpenAIServer() as server,
    ):
        client = OpenAI(base_url=server.base_url, api_key="k", max_retries=0)
        client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], extra_body={"max_token": 5}
        )

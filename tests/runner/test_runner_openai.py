"""The OpenAI backends over real HTTP: request shape, answers, and every kind of fault."""

from __future__ import annotations

import asyncio
import time

import pytest

from bfcl_action.core.records import Language, Mode, TestCase
from bfcl_action.model.retry import RetryPolicy
from bfcl_action.runner.backends import create_backend
from bfcl_action.runner.execute import CaseOutcome, ExecutionStats, execute
from tests.support.openai_server import OpenAIServer
from tests.support.runner import function, make_case, options, script

FAST = RetryPolicy(max_retries=3, base_delay=0.01)


def run(
    srv: OpenAIServer, cases: list[TestCase], mode: Mode = Mode.FC, policy: RetryPolicy = FAST
) -> tuple[list[CaseOutcome], ExecutionStats]:
    backend = create_backend(options(srv, mode), policy=policy)

    async def go() -> tuple[list[CaseOutcome], ExecutionStats]:
        try:
            return await execute(cases, backend, concurrency=4)
        finally:
            await backend.aclose()

    return asyncio.run(go())


def test_fc_mode_sends_tools_and_reads_tool_calls(server: OpenAIServer) -> None:
    case = make_case("simple_python_0", script("add", a=1, b=2))
    [outcome], _ = run(server, [case])
    assert outcome.samples[0].answer is not None
    assert outcome.samples[0].answer.output == [{"add": '{"a": 1, "b": 2}'}]
    [body] = server.requests
    assert body["model"] == "test-model"
    assert body["temperature"] == 0.001
    tool = body["tools"][0]["function"]
    assert tool["parameters"]["type"] == "object"
    assert tool["description"].endswith("Note that the provided function is in Python 3 syntax.")


def test_fc_mode_maps_dotted_names_for_the_api_and_back(server: OpenAIServer) -> None:
    case = make_case(
        "simple_python_0", script("math_factorial", n=5), [function("math.factorial", "n")]
    )
    [outcome], _ = run(server, [case])
    assert server.requests[0]["tools"][0]["function"]["name"] == "math_factorial"
    assert outcome.samples[0].answer is not None
    assert outcome.samples[0].answer.output == [{"math.factorial": '{"n": 5}'}]


def test_fc_mode_without_calls_returns_the_text(server: OpenAIServer) -> None:
    server.script["joke"] = {"content": "I cannot tell jokes with these tools."}
    [outcome], _ = run(server, [make_case("irrelevance_0", "tell a joke")])
    assert outcome.samples[0].answer is not None
    assert outcome.samples[0].answer.output == "I cannot tell jokes with these tools."


def test_prompt_mode_puts_functions_in_a_system_prompt_and_returns_text(
    server: OpenAIServer,
) -> None:
    server.script["add"] = {"content": "[add(a=1, b=2)]"}
    [outcome], _ = run(server, [make_case("simple_python_0", "please add")], Mode.PROMPT)
    assert outcome.samples[0].answer is not None
    assert outcome.samples[0].answer.output == "[add(a=1, b=2)]"
    [body] = server.requests
    assert "tools" not in body
    system, user = body["messages"]
    assert system["role"] == "system"
    assert '"name": "add"' in system["content"]
    assert "[func_name1(param_name1=param_value1" in system["content"]
    assert user == {"role": "user", "content": "please add"}


def test_prompt_mode_keeps_the_case_system_message_after_ours(server: OpenAIServer) -> None:
    case = TestCase.model_validate(
        {
            "id": "live_simple_0",
            "category": "live_simple",
            "question": [
                [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "hi"}]
            ],
            "functions": [function("add", "a")],
        }
    )
    run(server, [case], Mode.PROMPT)
    system = server.requests[0]["messages"][0]
    assert system["content"].startswith("You are an expert")
    assert system["content"].endswith("\n\nBe terse.")


def test_java_parameters_are_sent_as_strings_naming_their_type(server: OpenAIServer) -> None:
    fn = {
        "name": "Sum.of",
        "description": "sum",
        "parameters": {
            "type": "dict",
            "properties": {
                "xs": {"type": "ArrayList", "description": "xs", "items": {"type": "integer"}}
            },
            "required": ["xs"],
        },
    }
    case = make_case("simple_java_0", "sum", [fn], category="simple_java")
    case = case.model_copy(update={"language": Language.JAVA})
    run(server, [case])
    param = server.requests[0]["tools"][0]["function"]["parameters"]["properties"]["xs"]
    assert param["type"] == "string"
    assert "This is Java ArrayList type parameter in string representation." in param["description"]
    assert "items" not in param


def test_api_key_is_sent_as_bearer_token(server: OpenAIServer) -> None:
    run(server, [make_case("simple_python_0", "hi")])
    assert server.headers[0]["authorization"] == "Bearer sk-test-secret"


@pytest.mark.parametrize("kind", ["429", "500", "503", "timeout", "reset", "malformed", "empty"])
def test_transient_fault_is_retried_until_the_answer_arrives(
    server: OpenAIServer, kind: str
) -> None:
    server.fail("flaky", [kind, kind])
    [outcome], stats = run(server, [make_case("simple_python_0", script("add", a=1) + " flaky")])
    assert outcome.samples[0].answer is not None
    assert outcome.samples[0].answer.output == [{"add": '{"a": 1}'}]
    assert len(server.requests) == 3
    assert stats.retries == 2


def test_retry_after_on_429_is_honoured(server: OpenAIServer) -> None:
    server.retry_after = "1"
    server.fail("slow down", ["429"])
    start = time.monotonic()
    run(server, [make_case("simple_python_0", "slow down")])
    assert time.monotonic() - start >= 1.0
    assert len(server.requests) == 2


def test_case_that_keeps_failing_becomes_an_infrastructure_error(server: OpenAIServer) -> None:
    server.fail("down", ["500"] * 10)
    [down, fine], stats = run(
        server, [make_case("simple_python_0", "down"), make_case("simple_python_1", "up")]
    )
    assert down.samples[0].answer is None
    assert down.samples[0].infra_error == "HTTP 500 (gave up after 4 attempts)"
    assert fine.samples[0].answer is not None
    assert stats.infra_errors == 1
    assert len(server.requests_matching("down")) == 4


def test_client_error_is_not_retried(server: OpenAIServer) -> None:
    server.fail("bad", ["400"])
    [outcome], _ = run(server, [make_case("simple_python_0", "bad")])
    assert outcome.samples[0].infra_error is not None
    assert outcome.samples[0].infra_error.startswith("HTTP 400")
    assert len(server.requests) == 1


def test_concurrency_bound_is_respected(server: OpenAIServer) -> None:
    server.latency = 0.05
    # distinct questions: identical requests of a run are asked once
    cases = [make_case(f"simple_python_{i}", f"hi {i}") for i in range(16)]
    run(server, cases)  # concurrency 4
    assert 2 <= server.max_in_flight <= 4  # never more than the bound, and in parallel
    assert len(server.requests) == 16


def test_connections_are_reused_across_requests(server: OpenAIServer) -> None:
    cases = [make_case(f"simple_python_{i}", f"hi {i}") for i in range(40)]
    run(server, cases)  # concurrency 4
    assert server.count == 40
    assert server.connections <= 4


def test_tools_are_rendered_once_per_distinct_function_set(server: OpenAIServer) -> None:
    backend = create_backend(options(server))
    shared = [function("add", "a")]
    for i in range(5):
        backend.request(make_case(f"simple_python_{i}", "hi", shared), 0)  # type: ignore[attr-defined]
    backend.request(make_case("simple_python_9", "hi", [function("sub", "a")]), 0)  # type: ignore[attr-defined]
    assert backend.renderer.renders == 2  # type: ignore[attr-defined]
    asyncio.run(backend.aclose())


def test_an_unexpected_backend_error_fails_only_that_case(server: OpenAIServer) -> None:
    backend = create_backend(options(server), policy=FAST)
    real_answer = backend.answer

    async def flaky_answer(case, sample):  # type: ignore[no-untyped-def]
        if case.id == "simple_python_0":
            raise KeyError("boom")
        return await real_answer(case, sample)

    backend.answer = flaky_answer  # type: ignore[method-assign]
    cases = [make_case("simple_python_0", "a"), make_case("simple_python_1", "b")]

    async def go() -> tuple[list[CaseOutcome], ExecutionStats]:
        try:
            return await execute(cases, backend)
        finally:
            await backend.aclose()

    [broken, fine], stats = asyncio.run(go())
    assert broken.samples[0].infra_error == "unexpected KeyError: 'boom'"
    assert fine.samples[0].answer is not None
    assert stats.infra_errors == 1

"""The one request path, against the local OpenAI-compatible server made strict like OpenAI:
counters over every conversation step, fail-fast on a broken endpoint, a whole-request
deadline, the variations real servers send, and the request fields the spec asks for."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import Mode, TestCase
from bfcl_action.model.options import BackendOptions
from bfcl_action.model.providers.openai import is_reasoning_model, sampling_params
from bfcl_action.model.request import ask
from bfcl_action.model.shapes import describe_shapes
from bfcl_action.model.types import EndpointError, RequestStats
from bfcl_action.multiturn.cases import load_conversation_cases
from bfcl_action.runner import RunOptions, run_evaluation
from tests.support.openai_server import OpenAIServer, history_problem
from tests.support.runner import make_case, options

EXAMPLE = Path(__file__).parents[2] / "examples" / "notes-app" / "cases.multi_turn.jsonl"


@pytest.fixture(scope="module")
def notes() -> TestCase:
    return next(c for c in load_conversation_cases(EXAMPLE) if c.id == "own_multi_turn_notes_0")


def calls(*items: tuple[str, Any]) -> dict[str, Any]:
    return {"tool_calls": [{"name": n, "arguments": a} for n, a in items]}


def by_step(*steps: dict[str, Any]) -> Any:
    """Answer the n-th request of the run with `steps[n]`, then "Done."."""
    seen: list[int] = []

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        seen.append(1)
        return steps[len(seen) - 1] if len(seen) <= len(steps) else {"content": "Done."}

    return reply


def run(server: OpenAIServer, cases: list[TestCase], **kw: Any) -> Any:
    backend = kw.pop("backend", None) or options(server)
    return run_evaluation(cases, RunOptions(backend=backend, retry_base_delay=0.0, **kw))


# -- one request path, counted -------------------------------------------------------------


def test_a_multi_turn_run_counts_every_conversation_step(
    server: OpenAIServer, notes: TestCase, tmp_path: Path
) -> None:
    server.responder = by_step(
        calls(("login", {"username": "ana"})),
        calls(("create_note", {"title": "Call mom", "body": "Sunday 6pm"})),
    )
    server.fail("Call mom", ["500"])
    cases = [notes, make_case("simple_python_0", "hi")]
    sequential = options(server, concurrency=1)
    report, stats = run(server, cases, backend=sequential, cache_dir=tmp_path)
    steps = sum(len(turn) for turn in report.results[0].model_output)
    assert steps == 4  # two steps and a closing answer in turn 1, one answer in turn 2
    assert stats.requests == server.count == steps + 1 + 1  # the steps, "hi", the retry
    assert stats.retries == 1
    assert f"requests {stats.requests}, cache hits 0, retries 1" in "\n".join(report.notes)
    assert "served by test-model (5); system fingerprints fp_local (5)" in report.notes
    conversation = report.results[0]
    assert conversation.input_tokens == 10 * steps  # usage summed over the steps
    server.reset_log()
    _, again = run(server, cases, backend=sequential, cache_dir=tmp_path)
    assert (again.requests, again.cache_hits, server.count) == (0, steps + 1, 0)


def test_ask_is_the_same_path_for_synchronous_callers(server: OpenAIServer, tmp_path: Path) -> None:
    server.script["json please"] = {"content": '{"ok": true}'}
    stats = RequestStats()
    messages = [{"role": "user", "content": "json please"}]
    first = ask(messages, [], options(server), cache_dir=tmp_path, stats=stats)
    again = ask(messages, [], options(server), cache_dir=tmp_path, stats=stats)
    assert first.content == again.content == '{"ok": true}'
    assert (stats.requests, stats.cache_hits, server.count) == (1, 1, 1)
    assert (first.model, first.system_fingerprint) == ("test-model", "fp_local")


# -- multi-turn: every tool call gets a reply ----------------------------------------------


def test_the_strict_server_rejects_a_tool_call_left_unanswered() -> None:
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{"}}
            ],
        },
        {"role": "user", "content": "next turn"},
    ]
    assert "must be followed by tool messages" in str(history_problem({"messages": history}))
    history[1]["tool_calls"][0]["function"]["arguments"] = {"a": 1}
    assert "expected a string" in str(history_problem({"messages": history}))


def test_unparsable_arguments_get_the_parse_error_as_their_tool_result(
    server: OpenAIServer, notes: TestCase
) -> None:
    server.responder = by_step(
        calls(("login", '{"username": "ana"'), ("list_notes", "{}")),  # first one cut short
        {"content": "Sorry."},
    )
    report, _ = run(server, [notes])
    result = report.results[0]
    assert result.infra_error is None and server.rejected == []
    replies = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert [r["tool_call_id"] for r in replies] == ["call_0", "call_1"]
    assert replies[0]["content"].startswith("Error: could not parse the arguments of login")
    assert "not run" in replies[1]["content"]
    assert result.model_output[0][0] == [
        {"login": '{"username": "ana"'},
        {"list_notes": "{}"},
    ]  # scored as sent, as BFCL does


def test_object_arguments_go_back_as_a_string(server: OpenAIServer, notes: TestCase) -> None:
    server.responder = by_step(
        {
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "x1",
                        "type": "function",
                        "function": {"name": "login", "arguments": {"username": "ana"}},
                    }
                ],
            }
        },
    )
    report, stats = run(server, [notes])
    assert server.rejected == [] and report.results[0].infra_error is None
    sent = server.requests[1]["messages"][-2]["tool_calls"][0]["function"]["arguments"]
    assert sent == '{"username": "ana"}'
    assert stats.shapes["arguments_object"] == 1


# -- real server variations are diagnosed ----------------------------------------------------


def message(**fields: Any) -> dict[str, Any]:
    return {"message": {"role": "assistant", "content": None, **fields}}


def call_with(arguments: Any) -> list[dict[str, Any]]:
    return [{"id": "c", "type": "function", "function": {"name": "add", "arguments": arguments}}]


VARIANTS = {
    "empty args": message(tool_calls=call_with("")),
    "null args": message(tool_calls=call_with(None)),
    "legacy": message(function_call={"name": "add", "arguments": '{"a": 1, "b": 2}'}),
    "parts": message(content=[{"type": "text", "text": "add(a=1, b=2)"}]),
    "tagged text": message(content='<tool_call>{"name": "add", "arguments": {"a": 1}}</tool_call>'),
    "bracket text": message(content="[add(a=1, b=2)]"),
}


def test_each_server_variation_is_counted_with_what_to_fix(server: OpenAIServer) -> None:
    for needle, reply in VARIANTS.items():
        server.script[needle] = reply
    answer = [{"add": {"a": [1], "b": [2]}}]
    cases = [make_case(f"simple_python_{i}", q, answer=answer) for i, q in enumerate(VARIANTS)]
    report, stats = run(server, cases)
    assert dict(stats.shapes) == {
        "arguments_empty": 2,
        "legacy_function_call": 1,
        "content_parts": 1,
        "calls_as_text": 2,
    }
    assert not any(r.valid for r in report.results)  # BFCL's verdicts: none is a valid call
    lines = describe_shapes(stats.shapes)
    assert lines[0].startswith("2 ")
    assert any("tool-call parser on?" in line for line in report.notes)
    assert any("legacy `function_call`" in line for line in report.notes)


# -- fail fast on a broken endpoint ----------------------------------------------------------


def many(n: int) -> list[TestCase]:
    return [make_case(f"simple_python_{i}", f"q {i}") for i in range(n)]


def test_a_rejected_key_stops_the_run_at_the_first_answer(server: OpenAIServer) -> None:
    server.api_key = "sk-right"
    with pytest.raises(EndpointError) as caught:
        run(server, many(60), backend=options(server, concurrency=1))
    assert server.count == 1
    assert server.base_url in caught.value.message and "'test-model'" in caught.value.message
    assert "HTTP 401" in caught.value.message and "sk-" not in caught.value.message


def test_an_unknown_model_stops_the_run_naming_endpoint_and_model(server: OpenAIServer) -> None:
    server.known_models = {"gpt-real"}
    with pytest.raises(EndpointError, match=r"HTTP 404\) for model 'test-model'") as caught:
        run(server, many(60))
    assert server.count <= 4  # the requests already in flight (concurrency 4)
    assert server.base_url in caught.value.message


def test_a_base_url_without_a_scheme_is_refused_before_any_request() -> None:
    with pytest.raises(ConfigError, match="must start with http:// or https://"):
        run_evaluation(
            many(1),
            RunOptions(backend=BackendOptions(model="m", mode=Mode.FC, base_url="localhost:8000")),
        )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_server_is_one_outage_not_one_error_per_case() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    backend = BackendOptions(model="m", mode=Mode.FC, base_url=url, timeout=2.0, concurrency=4)
    start = time.monotonic()
    with pytest.raises(EndpointError, match="connection failures in a row") as caught:
        run_evaluation(many(200), RunOptions(backend=backend, retry_base_delay=0.0))
    assert url in caught.value.message
    assert time.monotonic() - start < 10


# -- the timeout is a deadline -----------------------------------------------------------------


def test_a_dripping_server_cannot_hold_a_request_past_the_timeout() -> None:
    with OpenAIServer(drip_s=0.2, drip_bytes=150) as srv:
        srv.fail("slow", ["drip", "drip"])
        srv.script["slow"] = {"content": "late answer"}
        start = time.monotonic()
        report, stats = run(
            srv,
            [make_case("simple_python_0", "slow")],
            backend=options(srv, timeout=1.0),
            max_retries=1,
        )
        took = time.monotonic() - start
    result = report.results[0]
    assert result.infra_error is not None and "timeout" in result.infra_error
    assert result.model_output is None  # nothing scored
    assert stats.requests == 2 and took < 5  # two attempts of ~1 s, not 30 s of dripping


# -- request fields the spec asks for ----------------------------------------------------------


def test_reasoning_models_get_no_temperature_and_max_completion_tokens() -> None:
    assert is_reasoning_model("o3-mini") and is_reasoning_model("openai/gpt-5")
    assert not is_reasoning_model("gpt-4o") and not is_reasoning_model("gpt-5-chat-latest")
    opts = BackendOptions(model="o4-mini", mode=Mode.FC, top_p=0.9, max_tokens=50)
    assert sampling_params(opts, "http://127.0.0.1:1/v1") == {"max_completion_tokens": 50}


def test_max_tokens_is_max_completion_tokens_on_openai_and_max_tokens_elsewhere() -> None:
    opts = BackendOptions(model="gpt-4o", mode=Mode.FC, max_tokens=50)
    official = sampling_params(opts, "https://api.openai.com/v1")
    assert official == {"temperature": 0.001, "max_completion_tokens": 50}
    assert sampling_params(opts, "http://127.0.0.1:8000/v1")["max_tokens"] == 50


def test_identical_requests_of_one_run_are_asked_once(server: OpenAIServer, tmp_path: Path) -> None:
    server.latency = 0.2
    twins = [make_case(f"simple_python_{i}", "the same question") for i in range(4)]
    report, stats = run(server, twins, cache_dir=tmp_path)
    assert server.count == 1 and (stats.requests, stats.shared, stats.cache_hits) == (1, 3, 0)
    assert len({str(r.model_output) for r in report.results}) == 1


def test_a_reasoning_model_run_is_fingerprinted_with_the_temperature_it_was_sent() -> None:
    sent_default = RunOptions(backend=BackendOptions(model="o3-mini", mode=Mode.FC))
    omitted = RunOptions(backend=BackendOptions(model="o3-mini", mode=Mode.FC, temperature=None))
    assert sent_default.comparable_settings() == omitted.comparable_settings()
    assert sent_default.comparable_settings()["temperature"] == "server default"

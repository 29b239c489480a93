"""Multi-turn conversations through the real runner, the `openai` SDK and a local server.

The scripted model answers by (opening user message, step within the turn); tool results
come back as `tool` messages (FC) or one user message (prompt), as in BFCL's inference.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.core.records import Mode, TestCase
from bfcl_action.multiturn.cases import load_conversation_cases
from bfcl_action.runner import RunOptions, run_evaluation
from tests.support.openai_server import OpenAIServer
from tests.support.runner import options

EXAMPLE = Path(__file__).parents[2] / "examples" / "notes-app" / "cases.multi_turn.jsonl"
RESULTS_PREFIX = "[{'role': 'tool'"

Plan = dict[str, list[dict[str, Any]]]


def calls(*items: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"tool_calls": [{"name": n, "arguments": a} for n, a in items]}


def prompt(*items: str) -> dict[str, Any]:
    return {"content": "[" + ", ".join(items) + "]"}


DONE = {"content": "Done."}


def responder(plan: Plan) -> Any:
    """Answer by the turn's opening user message and the number of steps taken since."""

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        opening = max(
            i
            for i, m in enumerate(messages)
            if m["role"] == "user" and not str(m["content"]).startswith(RESULTS_PREFIX)
        )
        step = sum(1 for m in messages[opening:] if m["role"] == "assistant")
        text = str(messages[opening]["content"])
        steps = next((v for k, v in plan.items() if k in text), [])
        return steps[step] if step < len(steps) else DONE

    return reply


@pytest.fixture(scope="module")
def cases() -> dict[str, TestCase]:
    return {c.id: c for c in load_conversation_cases(EXAMPLE)}


NOTES_0_FC: Plan = {
    "Call mom": [
        calls(("login", {"username": "ana"})),
        calls(("create_note", {"title": "Call mom", "body": "Sunday 6pm"})),
    ],
    "Tag it family": [
        calls(("tag_note", {"note_id": 3, "tag": "family"}), ("pin_note", {"note_id": 3}))
    ],
}


def run(server: OpenAIServer, case: TestCase, mode: Mode = Mode.FC, **kw: Any) -> Any:
    report, stats = run_evaluation([case], RunOptions(backend=options(server, mode), **kw))
    return report.results[0], stats


def test_a_conversation_runs_turn_by_turn_and_passes(
    server: OpenAIServer, cases: dict[str, TestCase]
) -> None:
    server.responder = responder(NOTES_0_FC)
    result, _ = run(server, cases["own_multi_turn_notes_0"])
    assert (result.valid, result.error_type) == (True, None)
    assert [len(turn) for turn in result.model_output] == [3, 2]
    assert len(server.requests) == 5


def test_tool_results_go_back_as_tool_messages(
    server: OpenAIServer, cases: dict[str, TestCase]
) -> None:
    server.responder = responder(NOTES_0_FC)
    run(server, cases["own_multi_turn_notes_0"])
    third = server.requests[2]["messages"]
    assert third[-1] == {"role": "tool", "tool_call_id": "call_0", "content": '{"id": 3}'}
    assert third[-2]["tool_calls"][0]["function"]["name"] == "create_note"


def test_a_rerun_replays_every_step_from_the_cache(
    server: OpenAIServer, cases: dict[str, TestCase], tmp_path: Path
) -> None:
    server.responder = responder(NOTES_0_FC)
    first, _ = run(server, cases["own_multi_turn_notes_0"], cache_dir=tmp_path)
    server.reset_log()
    second, _ = run(server, cases["own_multi_turn_notes_0"], cache_dir=tmp_path)
    assert server.requests == []
    assert second.model_output == first.model_output and second.valid


def test_a_failing_step_is_retried(server: OpenAIServer, cases: dict[str, TestCase]) -> None:
    server.responder = responder(NOTES_0_FC)
    server.fail("Tag it family", ["500", "429"])
    result, _ = run(server, cases["own_multi_turn_notes_0"], retry_base_delay=0.0)
    assert result.valid and server.faults_served == ["500", "429"]


def test_prompt_mode_sends_results_in_a_user_message(
    server: OpenAIServer, cases: dict[str, TestCase]
) -> None:
    server.responder = responder(
        {
            "Call mom": [
                prompt("login(username='ana')", "create_note(title='Call mom', body='Sunday 6pm')")
            ],
            "Tag it family": [prompt("tag_note(note_id=3, tag='family')", "pin_note(note_id=3)")],
        }
    )
    result, _ = run(server, cases["own_multi_turn_notes_0"], Mode.PROMPT)
    assert result.valid
    results = server.requests[1]["messages"][-1]
    assert results["role"] == "user" and '{"id": 3}' in results["content"]
    assert "create_note" in server.requests[0]["messages"][0]["content"]  # the system prompt


def test_functions_are_offered_from_the_miss_func_turn_on(
    server: OpenAIServer, cases: dict[str, TestCase]
) -> None:
    server.responder = responder(
        {
            "list my notes": [calls(("login", {"username": "ana"}), ("list_notes", {}))],
            "updated some more functions": [calls(("untag_note", {"note_id": 1, "tag": "home"}))],
        }
    )
    result, _ = run(server, cases["own_multi_turn_notes_3"])
    assert result.valid
    offered = [{t["function"]["name"] for t in r["tools"]} for r in server.requests]
    assert "untag_note" not in offered[0] and "untag_note" in offered[-1]


def test_a_model_that_never_stops_is_force_terminated(
    server: OpenAIServer, cases: dict[str, TestCase]
) -> None:
    server.responder = lambda body: calls(("count_notes", {}))
    result, _ = run(server, cases["own_multi_turn_notes_0"])
    assert result.error_type == "multi_turn:force_terminated"
    assert len(server.requests) == 21 and len(result.model_output) == 1


def test_an_unreachable_model_is_an_infrastructure_error(
    server: OpenAIServer, cases: dict[str, TestCase]
) -> None:
    server.responder = responder(NOTES_0_FC)
    server.fail("Tag it family", ["400"])
    result, _ = run(server, cases["own_multi_turn_notes_0"])
    assert result.infra_error is not None and "HTTP 400" in result.infra_error


def test_recorded_conversations_replay_through_the_replay_backend(
    server: OpenAIServer, cases: dict[str, TestCase], tmp_path: Path
) -> None:
    server.responder = responder(NOTES_0_FC)
    result, _ = run(server, cases["own_multi_turn_notes_0"])
    recorded = tmp_path / "answers.jsonl"
    recorded.write_text(json.dumps({"id": result.id, "result": result.model_output}) + "\n")
    opts = RunOptions(backend=options(server, Mode.FC, model=f"replay:{recorded}"))
    report, _ = run_evaluation([cases["own_multi_turn_notes_0"]], opts)
    assert report.results[0].valid


def test_a_step_answer_without_choices_is_retried(
    server: OpenAIServer, cases: dict[str, TestCase]
) -> None:
    server.responder = responder(NOTES_0_FC)
    server.fail("Tag it family", ["empty", "malformed"])
    result, _ = run(server, cases["own_multi_turn_notes_0"], retry_base_delay=0.0)
    assert result.valid and server.faults_served == ["empty", "malformed"]
    assert len(server.requests) == 7


def test_a_tool_that_exhausts_a_sandbox_budget_is_an_infrastructure_error(
    server: OpenAIServer,
) -> None:
    """Issue 23: the model's call wrote past the file-size limit; the conversation stops and
    the case is an infrastructure error, not the model's failure."""
    fixtures = Path(__file__).parents[1] / "fixtures" / "multiturn"
    empty = {"type": "dict", "properties": {}, "required": []}
    case = TestCase.model_validate(
        {
            "id": "own_multi_turn_greedy",
            "category": "own_multi_turn",
            "question": [[{"role": "user", "content": "Fill the disk"}]],
            "functions": [
                {"name": name, "description": name, "parameters": empty}
                for name in ("huge_write", "ping")
            ],
            "involved_classes": ["Greedy"],
            "environments": {"Greedy": "escape_env:Greedy"},
            "ground_truth": [["ping()"]],
            "environment_paths": [str(fixtures)],
        }
    )
    server.responder = responder(
        {"Fill the disk": [calls(("huge_write", {})), calls(("ping", {}))]}
    )
    result, _ = run(server, case)
    assert result.infra_error is not None
    assert "sandbox budget exhausted" in result.infra_error and "16 MiB" in result.infra_error
    assert len(server.requests) == 1

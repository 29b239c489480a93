"""BFCL's memory categories run end to end: the stand-in release's prerequisite conversations
fill the memory, then the questions are asked of it; the real runner and `openai` SDK against
the local model server (tests/support/memory_model.py), checked by the agentic checker."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import Mode
from bfcl_action.dataset import load_dataset, official
from bfcl_action.multiturn.check import ExecutionOptions
from bfcl_action.multiturn.conversation import AGENTIC_ANSWER_FORMAT
from bfcl_action.results.results_io import write_result_files
from bfcl_action.runner import RunOptions, run_evaluation
from bfcl_action.runner.evaluation import check_agentic_backends
from bfcl_action.settings.resolve import RunSettings
from tests.support.bfcl_wheel import build_wheel, release_for
from tests.support.memory_model import rememberer, vector_rememberer
from tests.support.openai_server import OpenAIServer
from tests.support.runner import options


@pytest.fixture
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wheel = build_wheel(tmp_path / "wheels")
    monkeypatch.setitem(official.RELEASES, "2026.3.23", release_for(wheel))
    monkeypatch.setenv("BFCL_ACTION_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("BFCL_ACTION_BFCL_WHEEL", str(wheel))


def run(server: OpenAIServer, category: str) -> dict[str, Any]:
    opts = RunOptions(backend=options(server, Mode.FC, timeout=5.0, concurrency=4))
    report, _ = run_evaluation(load_dataset("bfcl@2026.3.23", [category]), opts)
    return {r.id: r for r in report.results}


def first_user_texts(server: OpenAIServer) -> list[str]:
    """The opening user message of every request, in the order the server got them."""
    return [
        next(str(m["content"]) for m in body["messages"] if m["role"] == "user")
        for body in server.requests
    ]


def test_memory_kv_questions_are_answered_from_what_the_prerequisites_stored(
    dataset: None, server: OpenAIServer
) -> None:
    server.responder = rememberer("kv")
    results = run(server, "memory_kv")
    assert set(results) == {"memory_kv_0-customer-0", "memory_kv_1-customer-1"}  # no prereq
    assert all(r.valid for r in results.values()), results
    # the name came from the core memory in the system message; the age by search + retrieve
    [[final]] = results["memory_kv_0-customer-0"].model_output
    assert final == "{'answer': 'Zhang Yiming', 'context': 'from my memory'}"
    [[search, retrieve, _]] = results["memory_kv_1-customer-1"].model_output
    assert next(iter(search[0])) == "archival_memory_key_search"
    assert next(iter(retrieve[0])) == "archival_memory_retrieve"
    # the two prerequisite conversations ran first, in order, then the questions
    openings = first_user_texts(server)
    assert openings.index("Hi! My name is Zhang Yiming.") < openings.index(
        "By the way, my age is 35."
    )
    assert max(i for i, t in enumerate(openings) if "Zhang Yiming" in t or "35" in t) < min(
        i for i, t in enumerate(openings) if t.startswith("Question")
    )


def test_a_question_opens_with_the_memory_then_the_answer_form(
    dataset: None, server: OpenAIServer
) -> None:
    server.responder = rememberer("kv")
    run(server, "memory_kv")
    question = next(b for b in server.requests if "Question 0" in json.dumps(b["messages"]))
    system = question["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("You are a customer support assistant")
    assert '"first_name": "Zhang Yiming"' in system["content"]
    assert system["content"].endswith("\n\n" + AGENTIC_ANSWER_FORMAT)
    prereq = next(b for b in server.requests if "My name is" in json.dumps(b["messages"]))
    assert "The core memory is empty." in prereq["messages"][0]["content"]
    assert AGENTIC_ANSWER_FORMAT not in prereq["messages"][0]["content"]
    offered = {t["function"]["name"] for t in question["tools"]}
    assert "core_memory_add" in offered and "archival_memory_key_search" in offered


def test_memory_rec_sum_keeps_one_text_across_conversations(
    dataset: None, server: OpenAIServer
) -> None:
    server.responder = rememberer("rec_sum")
    results = run(server, "memory_rec_sum")
    assert all(r.valid for r in results.values()), results
    question = next(b for b in server.requests if "Question 1" in json.dumps(b["messages"]))
    assert "Name: Zhang Yiming. Age: 35. " in question["messages"][0]["content"]


def test_a_failed_prerequisite_leaves_the_memory_as_it_was(
    dataset: None, server: OpenAIServer
) -> None:
    server.responder = rememberer("rec_sum")
    server.fail("My name is", ["400"])  # the first conversation gets no answer
    results = run(server, "memory_rec_sum")
    assert results["memory_rec_sum_0-customer-0"].error_type == "agentic:answer_not_found"
    assert results["memory_rec_sum_1-customer-1"].valid


def test_the_result_files_are_in_bfcl_evals_memory_folder(
    dataset: None, server: OpenAIServer, tmp_path: Path
) -> None:
    server.responder = rememberer("kv")
    results = run(server, "memory_kv")
    [path] = write_result_files(list(results.values()), tmp_path / "m-FC")
    assert path == tmp_path / "m-FC" / "agentic" / "memory" / "kv" / "BFCL_v4_memory_kv_result.json"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["memory_kv_0-customer-0", "memory_kv_1-customer-1"]


def test_memory_vector_embeds_through_the_model_endpoint(
    dataset: None, server: OpenAIServer
) -> None:
    server.responder = vector_rememberer()
    opts = RunOptions(
        backend=options(server, Mode.FC, timeout=5.0, concurrency=4),
        multi_turn=ExecutionOptions(embedding_model="test-embedder"),
    )
    report, _ = run_evaluation(load_dataset("bfcl@2026.3.23", ["memory_vector"]), opts)
    results = {r.id: r for r in report.results}
    assert all(r.valid for r in results.values()), results
    embedded = [text for body in server.embedding_requests for text in body["input"]]
    assert "The user's age is 35" in embedded and "how old is the user, age" in embedded
    assert {body["model"] for body in server.embedding_requests} == {"test-embedder"}
    [[retrieve, final]] = results["memory_vector_1-customer-1"].model_output
    assert next(iter(retrieve[0])) == "archival_memory_retrieve"
    assert final == "{'answer': '35', 'context': 'from my memory'}"


def test_memory_vector_without_an_embedding_model_stops_before_any_request(
    dataset: None,
) -> None:
    cases = load_dataset("bfcl@2026.3.23", ["memory_vector"])
    settings = RunSettings(model="m", datasets=("bfcl@2026.3.23",))
    with pytest.raises(ConfigError, match=r"memory_vector needs an embedding model"):
        check_agentic_backends(settings, cases)
    check_agentic_backends(settings.model_copy(update={"embedding_model": "e"}), cases)

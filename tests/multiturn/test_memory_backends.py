"""BFCL's memory backends (kv, rec_sum) as bfcl-action runs them: the rules, the key search's
BM25+ ranking and the prerequisite chain's memory hand-over."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from bfcl_action.core.records import TestCase
from bfcl_action.multiturn.memory import (
    KeyValueMemory,
    Memory,
    MemoryStore,
    MemoryTools,
    SummaryMemory,
    VectorMemory,
    ranked,
)
from bfcl_action.safety.sandbox import EnvironmentSpec

KEYS = [
    "user_age",
    "favorite_coffee_machine",
    "home_city",
    "age_of_daughter",
    "budget",
    "coffee_budget_limit",
]

# What rank_bm25 0.2.2's BM25Plus (bfcl-eval's key search) answers for KEYS, serialised as
# bfcl-eval serialises it: the floats must be the same to the last digit.
REFERENCE = {
    "age": '{"ranked_results": [[2.5915936218491966, "user_age"], [2.3628061051368334, '
    '"age_of_daughter"], [1.252762968495368, "favorite_coffee_machine"], [1.252762968495368, '
    '"home_city"], [1.252762968495368, "budget"]]}',
    "coffee budget": '{"ranked_results": [[4.725612210273667, "coffee_budget_limit"], '
    '[4.191937625349885, "budget"], [3.6155690736322015, "favorite_coffee_machine"], '
    '[2.505525936990736, "user_age"], [2.505525936990736, "home_city"]]}',
    "Home_City of user": '{"ranked_results": [[11.942837861377647, "home_city"], '
    '[9.86323922879945, "user_age"], [9.507864778928493, "age_of_daughter"], '
    '[7.783640596221253, "favorite_coffee_machine"], [7.783640596221253, "budget"]]}',
    "nothing": '{"ranked_results": [[0.0, "user_age"], [0.0, "favorite_coffee_machine"], '
    '[0.0, "home_city"], [0.0, "age_of_daughter"], [0.0, "budget"]]}',
}


@pytest.mark.parametrize("query", REFERENCE)
def test_key_search_ranks_as_rank_bm25_bm25plus(query: str) -> None:
    assert json.dumps(ranked(query, KEYS)) == REFERENCE[query]


def tools(backend: Memory, *, commit: bool = False) -> MemoryTools:
    return MemoryTools(backend, MemoryStore(), ("memory_kv", "customer"), commit=commit)


def call(executor: MemoryTools, name: str, **kwargs: Any) -> Any:
    text = executor.call("model", name, (), kwargs)
    try:
        return json.loads(text)
    except ValueError:
        return text


def test_core_memory_rules() -> None:
    executor = tools(KeyValueMemory())
    assert "status" in call(executor, "core_memory_add", key="first_name", value="Ana")
    assert "error" in call(executor, "core_memory_add", key="first_name", value="Bo")  # unique
    assert "error" in call(executor, "core_memory_add", key="First Name", value="x")  # snake
    assert "error" in call(executor, "core_memory_add", key="bio", value="x" * 301)  # length
    for i in range(6):
        assert "status" in call(executor, "core_memory_add", key=f"k_{i}", value="v")
    assert "error" in call(executor, "core_memory_add", key="one_more", value="v")  # 7 at most
    assert call(executor, "core_memory_retrieve", key="first_name") == {"value": "Ana"}
    assert call(executor, "core_memory_retrieve_all")["first_name"] == "Ana"
    assert "error" in call(executor, "core_memory_replace", key="nope", value="v")
    assert "status" in call(executor, "core_memory_remove", key="k_0")
    assert "k_0" not in call(executor, "core_memory_list_keys")["keys"]


def test_archival_memory_holds_more_and_is_searched() -> None:
    executor = tools(KeyValueMemory())
    for key in KEYS:
        assert "status" in call(executor, "archival_memory_add", key=key, value="x" * 2000)
    assert json.dumps(call(executor, "archival_memory_key_search", query="age")) == REFERENCE["age"]
    assert call(executor, "archival_memory_key_search", query="age", k=1)["ranked_results"] == [
        [2.5915936218491966, "user_age"]
    ]
    assert "error" in call(executor, "archival_memory_add", key="long", value="x" * 2001)


def test_a_key_search_of_an_empty_memory_fails_as_upstream() -> None:
    assert call(tools(KeyValueMemory()), "core_memory_key_search", query="age") == (
        "Error during execution: division by zero"
    )


def test_the_summary_memory_is_one_bounded_text() -> None:
    executor = tools(SummaryMemory())
    assert "error" in call(executor, "memory_retrieve")
    assert "status" in call(executor, "memory_append", text="Name: Ana. ")
    assert "status" in call(executor, "memory_append", text="Age: 35.")
    assert call(executor, "memory_retrieve") == {"memory_content": "Name: Ana. Age: 35."}
    assert "error" in call(executor, "memory_append", text="x" * 10_000)
    assert "error" in call(executor, "memory_replace", old_text="Bo", new_text="Cy")
    assert "status" in call(executor, "memory_replace", old_text="Ana", new_text="Bea")
    assert executor.backend.context() == "Name: Bea. Age: 35."


def test_only_the_backends_tools_can_be_called() -> None:
    executor = tools(KeyValueMemory())
    assert (
        call(executor, "load", snapshot={}) == "Error during execution: name 'load' is not defined"
    )
    assert call(executor, "memory_append", text="x").endswith("is not defined")
    assert call(executor, "core_memory_add", key="a").startswith("Error during execution: ")


def test_the_visible_memory_opens_the_conversation() -> None:
    backend = KeyValueMemory()
    executor = tools(backend)
    assert "The core memory is empty." in executor.instruction()
    backend.core_memory_add("first_name", "Ana")
    backend.archival_memory_add("age", "35")
    text = executor.instruction()
    assert '"first_name": "Ana"' in text and "35" not in text  # archival stays out of context
    assert text.startswith("You are a customer support assistant")


def case(case_id: str) -> TestCase:
    return TestCase.model_validate(
        {
            "id": case_id,
            "category": "memory_kv",
            "question": [[{"role": "user", "content": "hi"}]],
            "scenario": "customer",
        }
    )


def test_the_prerequisite_chain_hands_its_memory_on_once() -> None:
    store = MemoryStore()
    env = EnvironmentSpec("MemoryAPI", "host:memory_kv", {"scenario": "customer"})
    seen: list[dict[str, str]] = []

    async def converse(prereq: TestCase) -> None:
        executor = store.tools("memory_kv", env, prereq.id)
        assert isinstance(executor.backend, KeyValueMemory)
        seen.append(dict(executor.backend.core))
        index = prereq.id.split("_")[-1][0]
        executor.backend.core_memory_add(f"fact_{index}", index)
        if index != "1":  # the second conversation fails: its memory is not kept
            executor.finish()

    prereqs = [case(f"memory_kv_prereq_{i}-customer-{i}") for i in range(3)]
    loads: list[tuple[str, str]] = []

    def load(category: str, scenario: str) -> list[TestCase]:
        loads.append((category, scenario))
        return prereqs

    async def questions() -> None:
        await asyncio.gather(
            *(store.ready(case(f"memory_kv_{i}-customer-{i}"), load, converse) for i in range(3))
        )

    asyncio.run(questions())
    assert loads == [("memory_kv", "customer")]  # one chain for the scenario's questions
    assert seen == [{}, {"fact_0": "0"}, {"fact_0": "0"}]
    question = store.tools("memory_kv", env, "memory_kv_0-customer-0")
    assert question.backend.snapshot()["core_memory"] == {"fact_0": "0", "fact_2": "2"}
    question.backend.core_memory_clear()
    question.finish()  # a question never changes what the next one sees
    again = store.tools("memory_kv", env, "memory_kv_1-customer-1")
    assert again.backend.snapshot()["core_memory"] == {"fact_0": "0", "fact_2": "2"}


def fake_embed(texts: list[str]) -> list[list[float]]:
    """Three axes: how much a text is about age, names, and coffee."""
    axes = (("age", "old", "years"), ("name", "called"), ("coffee", "espresso"))
    return [[float(sum(w in t.lower() for w in axis)) + 0.01 for axis in axes] for t in texts]


def test_vector_memory_finds_texts_by_meaning_with_ids() -> None:
    backend = VectorMemory(fake_embed)
    executor = tools(backend)
    assert call(executor, "archival_memory_add", text="The user is 35 years old") == {"id": 0}
    assert call(executor, "archival_memory_add", text="Her name is Ana") == {"id": 1}
    assert call(executor, "archival_memory_add", text="Likes espresso coffee") == {"id": 2}
    found = call(executor, "archival_memory_retrieve", query="how old, what age", top_k=2)
    assert len(found["result"]) == 2 and found["result"][0]["id"] == 0
    assert found["result"][0]["text"] == "The user is 35 years old"
    assert 0.99 < found["result"][0]["similarity_score"] <= 1.0 + 1e-9  # cosine of unit vectors
    assert "status" in call(executor, "archival_memory_update", vec_id=2, new_text="called Bo")
    named = call(executor, "archival_memory_retrieve", query="name", top_k=2)["result"]
    assert [(r["id"], r["text"]) for r in named] == [(1, "Her name is Ana"), (2, "called Bo")]
    assert "error" in call(executor, "archival_memory_remove", vec_id=7)
    assert call(executor, "archival_memory_retrieve_all")["result"][0] == {
        "id": 0,
        "text": "The user is 35 years old",
    }


def test_vector_memory_rules_and_context() -> None:
    backend = VectorMemory(fake_embed)
    executor = tools(backend)
    assert backend.context() == "{}"  # bfcl-eval shows the empty id map
    assert call(executor, "core_memory_retrieve", query="x") == {"result": []}
    for i in range(7):
        assert call(executor, "core_memory_add", text=f"fact {i}") == {"id": i}
    assert "error" in call(executor, "core_memory_add", text="one more")
    assert "error" in call(executor, "archival_memory_add", text="x" * 2001)
    assert json.loads(backend.context())["6"] == "fact 6"
    assert call(executor, "core_memory_clear") == {"status": "Memory cleared."}
    assert call(executor, "core_memory_add", text="again") == {"id": 0}  # ids restart


def test_a_vector_memory_snapshot_keeps_its_vectors() -> None:
    calls: list[list[str]] = []

    def counting(texts: list[str]) -> list[list[float]]:
        calls.append(texts)
        return fake_embed(texts)

    first = VectorMemory(counting)
    first.archival_memory_add("The user is 35 years old")
    second = VectorMemory(counting)
    second.load(json.loads(json.dumps(first.snapshot())))
    assert second.archival_memory_retrieve("age")["result"][0]["text"] == "The user is 35 years old"
    assert calls == [["The user is 35 years old"], ["age"]]  # nothing embedded twice

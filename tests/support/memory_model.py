"""A scripted model for BFCL's memory categories, for the local OpenAI server (FC mode).

In the stand-in release's prerequisite conversations (tests/support/bfcl_wheel.py) the user
says "My name is X." and "my age is N."; the model stores them: `kv` puts the name in the core
memory (shown in later conversations' system message) and the age in the archival memory
(found only by searching), `rec_sum` appends both to its one text. Asked "Question 0" (the
name) or "Question 1" (the age), it answers from what the memory gives it, in the
`{'answer': ..., 'context': ...}` form, or says it does not know.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

Reply = dict[str, Any]


def _call(name: str, **arguments: Any) -> Reply:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def _answer(value: str | None) -> Reply:
    said = value or "I do not know"
    return {"content": f"{{'answer': '{said}', 'context': 'from my memory'}}"}


def _turn(body: dict[str, Any]) -> tuple[int, str, str, list[str]]:
    """What a responder reads of a request: the step within the current question (calls
    answered so far), the question's text, the system message and the tool results since."""
    messages = body["messages"]
    opening = max(i for i, m in enumerate(messages) if m["role"] == "user")
    step = sum(1 for m in messages[opening:] if m["role"] == "assistant")
    system = str(messages[0]["content"]) if messages[0]["role"] == "system" else ""
    results = [str(m["content"]) for m in messages[opening:] if m["role"] == "tool"]
    return step, str(messages[opening]["content"]), system, results


def rememberer(backend: str) -> Callable[[dict[str, Any]], Reply]:
    """The responder for `memory_kv` (`backend="kv"`) or `memory_rec_sum` (`"rec_sum"`)."""

    def reply(body: dict[str, Any]) -> Reply:
        step, text, system, results = _turn(body)
        name = re.search(r"name is ([^.]+)\.", text)
        age = re.search(r"age is (\d+)", text)
        if step == 0 and name:
            if backend == "kv":
                return _call("core_memory_add", key="first_name", value=name.group(1))
            return _call("memory_append", text=f"Name: {name.group(1)}. ")
        if step == 0 and age:
            if backend == "kv":
                return _call("archival_memory_add", key="user_age", value=age.group(1))
            return _call("memory_append", text=f"Age: {age.group(1)}. ")
        if "Question 0" in text:
            pattern = r'"first_name": "([^"]+)"' if backend == "kv" else r"Name: ([^.]+)\."
            found = re.search(pattern, system)
            return _answer(found.group(1) if found else None)
        if "Question 1" in text and backend == "rec_sum":
            found = re.search(r"Age: (\d+)", system)
            return _answer(found.group(1) if found else None)
        if "Question 1" in text:
            if step == 0:
                return _call("archival_memory_key_search", query="age")
            if step == 1:
                try:
                    best = json.loads(results[-1])["ranked_results"][0][1]
                except (ValueError, LookupError, TypeError):
                    return _answer(None)
                return _call("archival_memory_retrieve", key=best)
            try:
                return _answer(str(json.loads(results[-1])["value"]))
            except (ValueError, LookupError, TypeError):
                return _answer(None)
        return {"content": "Noted, thank you."}

    return reply


def vector_rememberer() -> Callable[[dict[str, Any]], Reply]:
    """The responder for `memory_vector`: free-text memories, the name in the core memory as
    "first name: X" (shown in the system message), the age in the archival memory, found by
    `archival_memory_retrieve` (the query embedded through the server's `/embeddings`)."""

    def reply(body: dict[str, Any]) -> Reply:
        step, text, system, results = _turn(body)
        name = re.search(r"name is ([^.]+)\.", text)
        age = re.search(r"age is (\d+)", text)
        if step == 0 and name:
            return _call("core_memory_add", text=f"first name: {name.group(1)}")
        if step == 0 and age:
            return _call("archival_memory_add", text=f"The user's age is {age.group(1)}")
        if "Question 0" in text:
            found = re.search(r"first name: ([^\"]+)\"", system)
            return _answer(found.group(1) if found else None)
        if "Question 1" in text:
            if step == 0:
                return _call("archival_memory_retrieve", query="how old is the user, age")
            try:
                best = json.loads(results[-1])["result"][0]["text"]
            except (ValueError, LookupError, TypeError):
                return _answer(None)
            found = re.search(r"age is (\d+)", best)
            return _answer(found.group(1) if found else None)
        return {"content": "Noted, thank you."}

    return reply

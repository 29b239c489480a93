"""Canonical forms and hashes: the identity of an item for exact deduplication.

Two items are the same test when their function docs, question and answer agree after
normalisation (whitespace folded, case ignored in free text, functions in name order, JSON
with sorted keys). The interface hash (function names with typed parameters) ignores prose,
so it flags the same API described in other words: a signal for review, not a reason to drop.
"""

from __future__ import annotations

import re
from typing import Any

from bfcl_action.checker.normalize import normalize_text
from bfcl_action.core.fingerprint import canonical_json, sha256_hex
from bfcl_action.core.records import FunctionDoc
from curation.models import Item

_SPACE = re.compile(r"\s+")


def fold(text: str) -> str:
    """Case- and whitespace-insensitive form of free text."""
    return _SPACE.sub(" ", text).strip().casefold()


def _fold_prose(value: Any, key: str = "") -> Any:
    if isinstance(value, str):
        return fold(value) if key == "description" else value
    if isinstance(value, list):
        return [_fold_prose(v) for v in value]
    if isinstance(value, dict):
        return {k: _fold_prose(v, k) for k, v in value.items()}
    return value


def canonical_functions(functions: list[FunctionDoc]) -> list[dict[str, Any]]:
    docs = [_fold_prose(f.model_dump(mode="json")) for f in functions]
    return sorted(docs, key=lambda d: str(d.get("name", "")))


def function_text(functions: list[FunctionDoc]) -> str:
    """Prose of the function docs (names, descriptions, parameter names and descriptions),
    the text near-duplicate detection compares."""
    parts: list[str] = []
    for f in sorted(functions, key=lambda f: f.name):
        parts.append(f.name.replace("_", " ").replace(".", " "))
        parts.append(f.description)
        props = f.parameters.get("properties", {})
        if isinstance(props, dict):
            for name, spec in props.items():
                parts.append(name.replace("_", " "))
                if isinstance(spec, dict):
                    parts.append(str(spec.get("description", "")))
    return fold(" ".join(parts))


def question_text(item: Item) -> str:
    return fold(" ".join(m.content or "" for turn in item.question for m in turn))


def similarity_text(item: Item) -> str:
    """The question as near-duplicate detection compares it: the user's (and assistant's)
    turns without system prompts, since a long shared system prompt would make every
    question that follows it look alike."""
    return fold(
        " ".join(m.content or "" for turn in item.question for m in turn if m.role != "system")
    )


def _answer_value(value: Any) -> Any:
    if isinstance(value, str):
        return normalize_text(value)
    if isinstance(value, list):
        return [_answer_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _answer_value(v) for k, v in sorted(value.items())}
    return value


def answer_key(item: Item) -> str:
    """What the test expects, as the checker compares it (strings normalised, calls in any
    order): items with different keys are different tests however alike their wording."""
    calls = sorted(canonical_json(_answer_value(c)) for c in item.possible_answer)
    return sha256_hex(canonical_json({"category": item.category, "calls": calls}))


def canonical_hash(item: Item) -> str:
    payload = {
        "functions": canonical_functions(item.functions),
        "question": question_text(item),
        "answer": item.possible_answer,
    }
    return sha256_hex(canonical_json(payload))


def interface_hash(functions: list[FunctionDoc]) -> str:
    sig = []
    for f in sorted(functions, key=lambda f: f.name):
        props = f.parameters.get("properties", {})
        params = sorted(
            (n, str(s.get("type", "")) if isinstance(s, dict) else "")
            for n, s in (props.items() if isinstance(props, dict) else [])
        )
        sig.append([f.name, params, sorted(f.parameters.get("required", []) or [])])
    return sha256_hex(canonical_json(sig))


def prompt_hash(item: Item) -> str:
    """Identity of what the model is shown (functions and question), without the answer: two
    items with one prompt hash and different expectations contradict each other."""
    payload = {"functions": canonical_functions(item.functions), "question": question_text(item)}
    return sha256_hex(canonical_json(payload))

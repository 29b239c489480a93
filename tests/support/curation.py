"""Builders for curation tests: small, realistic items and contributions."""

from __future__ import annotations

from typing import Any

from bfcl_action.core.records import FunctionDoc, Message
from curation.models import Item, Origin


def weather_doc(
    name: str = "get_weather", description: str = "Get the current weather for a city."
) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "parameters": {
            "type": "dict",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. Tokyo"},
                "unit": {
                    "type": "string",
                    "enum": ["celsius", "fahrenheit"],
                    "description": "Unit",
                },
            },
            "required": ["city"],
        },
    }


def contribution(question: str = "What's the weather in Tokyo?", **over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "question": question,
        "functions": [weather_doc()],
        "ground_truth": [
            {"get_weather": {"city": ["Tokyo", "Tokyo, Japan"], "unit": ["celsius", ""]}}
        ],
        "contributor": "alice",
    }
    base.update(over)
    return base


def item(
    question: str = "What's the weather in Tokyo?",
    *,
    functions: list[dict[str, Any]] | None = None,
    answer: list[dict[str, dict[str, list[Any]]]] | None = None,
    ref: str = "t:1",
    contributor: str = "alice",
) -> Item:
    return Item(
        origin=Origin(kind="file", ref=ref),
        question=[[Message(role="user", content=question)]],
        functions=[FunctionDoc.model_validate(f) for f in (functions or [weather_doc()])],
        possible_answer=answer
        if answer is not None
        else [{"get_weather": {"city": ["Tokyo"], "unit": ["celsius", ""]}}],
        contributor=contributor,
        license="Apache-2.0",
    )

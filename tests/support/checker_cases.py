"""Tiny builders for handcrafted checker cases: a function doc, a test case, a call."""

from __future__ import annotations

from typing import Any

from bfcl_action.core.records import Call, ExpectedCall, FunctionDoc, Language, TestCase


def fn(name: str, required: tuple[str, ...] = (), **properties: dict[str, Any]) -> FunctionDoc:
    """A BFCL function doc; `properties` maps parameter names to their schema."""
    return FunctionDoc(
        name=name,
        parameters={"type": "dict", "properties": properties, "required": list(required)},
    )


def case(
    category: str,
    functions: list[FunctionDoc],
    answer: list[ExpectedCall],
    language: Language = Language.PYTHON,
) -> TestCase:
    return TestCase(
        id=f"{category}_0",
        category=category,
        question=[[]],
        functions=functions,
        possible_answer=answer,
        language=language,
    )


def call(name: str, **arguments: Any) -> Call:
    return Call(name=name, arguments=arguments)


STRING = {"type": "string"}
INTEGER = {"type": "integer"}
FLOAT = {"type": "float"}
BOOLEAN = {"type": "boolean"}
DICT = {"type": "dict"}
ANY = {"type": "any"}


def array(item_type: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": item_type}}

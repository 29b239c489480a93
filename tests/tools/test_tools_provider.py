"""Own tools the target provider would reject are errors at file:line, per provider profile."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest

from bfcl_action.tools import ToolValidationError, parse_tools
from bfcl_action.tools.validate import ToolLimits

GENERIC = ToolLimits(provider="generic")
OPENAI = ToolLimits(provider="openai")


def tool_file(
    parameters: Mapping[str, object], *, description: str = "Find.", **extra: object
) -> str:
    function = {"name": "find", "description": description, "parameters": parameters, **extra}
    return json.dumps([{"type": "function", "function": function}], indent=1)


TAGS = {"type": "object", "properties": {"tags": {"type": "array"}}, "required": ["tags"]}


def errors_of(text: str, limits: ToolLimits = OPENAI) -> list[str]:
    """The errors that leave the tool out under `limits` (the rest of a set still loads)."""
    tools = parse_tools(text, "tools.json", limits)
    assert not tools.functions
    return [i.render() for i in tools.left_out]


def test_openai_rejects_an_array_without_items_at_its_line() -> None:
    [error] = errors_of(tool_file(TAGS))
    assert error.startswith("tools.json:")
    assert "parameters.properties.tags" in error and "without `items`" in error


def test_a_generic_server_only_warns_about_an_array_without_items() -> None:
    tools = parse_tools(tool_file(TAGS), "tools.json", GENERIC)
    assert [f.name for f in tools.functions] == ["find"]
    assert any("without `items`" in w.render() for w in tools.warnings)


def test_openai_rejects_a_description_over_1024_characters() -> None:
    text = tool_file({"type": "object", "properties": {}}, description="d" * 1025)
    [error] = errors_of(text)
    assert "description too long for OpenAI" in error and "1025 characters" in error
    assert parse_tools(text, "tools.json", GENERIC).functions


def test_strict_mode_needs_closed_objects_with_every_property_required() -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
        "required": ["city"],
    }
    errors = errors_of(tool_file(schema, strict=True))
    assert any("additionalProperties: false" in e for e in errors)
    assert any("missing unit" in e for e in errors)
    closed = {**schema, "required": ["city", "unit"], "additionalProperties": False}
    assert parse_tools(tool_file(closed, strict=True), "tools.json", OPENAI).functions
    assert parse_tools(tool_file(schema), "tools.json", OPENAI).functions  # not strict: fine


def test_a_provider_limit_leaves_out_only_that_tool() -> None:
    short = {"type": "function", "function": {"name": "ok", "description": "Fine."}}
    long = {"type": "function", "function": {"name": "long", "description": "d" * 1025}}
    tools = parse_tools(json.dumps([short, long], indent=1), "tools.json", OPENAI)
    assert [f.name for f in tools.functions] == ["ok"]
    assert [i.tool for i in tools.left_out] == ["long"]


def test_a_provider_limit_beside_a_real_error_still_fails_the_set() -> None:
    bad = {"type": "function", "function": {"name": "bad name", "description": "d" * 1025}}
    with pytest.raises(ToolValidationError) as err:
        parse_tools(json.dumps([bad]), "tools.json", OPENAI)
    assert any("illegal tool name" in i.render() for i in err.value.issues)

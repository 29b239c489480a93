"""Malformed tool files: every error of a file at once, each with file:line:col, the tool,
the field, what was expected and what was found."""

import json
from pathlib import Path

import pytest

from bfcl_action.tools import ToolValidationError, load_tools, parse_tools

FIXTURES = Path(__file__).parents[1] / "fixtures" / "tools"


def mcp_tool(properties: dict) -> str:
    """One MCP tool named f on one line of JSON."""
    schema = {"type": "object", "properties": properties}
    return json.dumps([{"name": "f", "description": "F.", "inputSchema": schema}])


def errors_of(*patterns: str) -> list[str]:
    with pytest.raises(ToolValidationError) as info:
        load_tools(list(patterns), base_dir=FIXTURES)
    return [issue.render() for issue in info.value.issues]


def test_all_errors_of_a_file_are_reported_together() -> None:
    assert errors_of("malformed/many_errors.json") == [
        "malformed/many_errors.json:5:15: tool get weather: function.name: illegal tool name "
        "(expected letters, digits, '_' or '-' ('.' is allowed and mapped to '_'), "
        "found 'get weather')",
        "malformed/many_errors.json:13:31: tool get weather: "
        "function.parameters.properties.options.type: unknown type (BFCL's 'dict' is JSON "
        "Schema's 'object') (expected one of array, boolean, integer, null, number, object, "
        "string, found 'dict' (string))",
        "malformed/many_errors.json:22:93: tool lookup: inputSchema.properties.key.minLength: "
        "invalid JSON Schema: type rule failed (expected type: 'integer', found '1' (string))",
        "malformed/many_errors.json:24:3: expected a tool definition object (expected an "
        "OpenAI, MCP (inputSchema), Anthropic (input_schema), Gemini, VS Code, Dify or BFCL "
        "tool definition, "
        "found 'not a tool' (string))",
    ]


def test_yaml_errors_point_at_the_value_and_duplicates_are_reported() -> None:
    assert errors_of("malformed/anthropic_bad.yaml") == [
        "malformed/anthropic_bad.yaml:14:3: tool book_table: name: duplicate tool name "
        "(first defined at malformed/anthropic_bad.yaml:1) (expected a name unique across all "
        "tool files (after mapping '.' to '_'), found 'book_table')",
        "malformed/anthropic_bad.yaml:16:11: tool book_table: input_schema.type: parameters "
        "must be an object schema (expected 'object', found 'array' (string))",
    ]


def test_json_syntax_error_has_its_position() -> None:
    assert errors_of("malformed/trailing_comma.json") == [
        "malformed/trailing_comma.json:2:82: invalid JSON: expected a quoted key, found '}'"
    ]


def test_yaml_syntax_error_has_its_position() -> None:
    assert errors_of("malformed/bad_indent.yaml") == [
        "malformed/bad_indent.yaml:3:16: invalid YAML: mapping values are not allowed here"
    ]


def test_yaml_duplicate_keys_are_an_error() -> None:
    assert errors_of("malformed/duplicate_key.yaml") == [
        'malformed/duplicate_key.yaml:2:3: invalid YAML: found duplicate key "name" with value'
        ' "b" (original value: "a")'
    ]


def test_a_file_that_is_not_a_tool_file_says_what_was_expected() -> None:
    assert errors_of("malformed/not_tools.json") == [
        "malformed/not_tools.json:1:1: not a recognised tool definition (expected an OpenAI, "
        "MCP (inputSchema), Anthropic (input_schema), Gemini, VS Code, Dify or BFCL tool "
        "definition, found object with keys dependencies, version)"
    ]


def test_errors_of_several_files_come_in_one_report() -> None:
    with pytest.raises(ToolValidationError) as info:
        load_tools(["malformed/*.json", "malformed/*.yaml"], base_dir=FIXTURES)
    files = {i.file for i in info.value.issues}
    assert len(files) == 6
    assert str(info.value).startswith("10 errors in tool definitions (6 files):\n")


def test_a_glob_matching_nothing_is_reported() -> None:
    assert errors_of("valid/*.json", "nope/*.json")[0] == (
        ".bfcl.yml: tools[1]: pattern matched no files "
        "(expected at least one tool file, found 'nope/*.json')"
    )


def test_json_duplicate_key_is_an_error_with_both_lines() -> None:
    with pytest.raises(ToolValidationError) as info:
        parse_tools('{"name": "a",\n "name": "b"}', "t.json")
    assert info.value.issues[0].render() == (
        "t.json:2:2: invalid JSON: duplicate key 'name' (first at line 1)"
    )


def test_dotted_names_collide_with_their_mapped_form() -> None:
    text = (
        '[{"name": "a.b", "description": "x", "parameters": {"type": "dict", "properties": {}}},\n'
        ' {"name": "a_b", "description": "y", "parameters": {"type": "dict", "properties": {}}}]'
    )
    with pytest.raises(ToolValidationError) as info:
        parse_tools(text, "t.json")
    assert info.value.issues[0].render() == (
        "t.json:2:2: tool a_b: name: tool names collide (first defined at t.json:1) "
        "(expected a name unique across all tool files (after mapping '.' to '_'), "
        "found 'a_b')"
    )


def test_default_outside_enum_is_a_warning_as_providers_accept_it() -> None:
    text = mcp_tool({"u": {"type": "string", "enum": ["c", "f"], "default": "k"}})
    tools = parse_tools(text, "t.json")
    col = text.index('"k"') + 1
    assert [f.name for f in tools.functions] == ["f"]
    assert [w.render() for w in tools.warnings] == [
        f"t.json:1:{col}: warning: tool f: inputSchema.properties.u.default: default is not one "
        "of the enum values (expected one of 'c', 'f', found 'k' (string))"
    ]


def test_what_providers_accept_loads_with_warnings_at_their_lines() -> None:
    """A default or enum value of another type and a `required` name without a property are
    accepted by OpenAI and scored by BFCL: warnings, the tool loads."""
    text = json.dumps(
        [
            {
                "name": "f",
                "description": "F.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "days": {"type": "integer", "default": "three"},
                        "unit": {"type": "string", "enum": ["c", 0]},
                    },
                    "required": ["days", "country"],
                },
            }
        ],
        indent=1,
    )
    tools = parse_tools(text, "t.json")
    assert [f.name for f in tools.functions] == ["f"]
    fields = [w.field for w in tools.warnings]
    assert fields == [
        "inputSchema.properties.unit.enum[1]",
        "inputSchema.properties.days.default",
        "inputSchema.required[1]",
    ] or sorted(fields) == sorted(
        [
            "inputSchema.properties.days.default",
            "inputSchema.properties.unit.enum[1]",
            "inputSchema.required[1]",
        ]
    )


def test_default_null_is_accepted_on_any_type() -> None:
    tools = parse_tools(mcp_tool({"cursor": {"type": "string", "default": None}}), "t.json")
    assert [f.name for f in tools.functions] == ["f"] and not tools.warnings


def test_java_and_javascript_type_names_of_bfcl_docs_load() -> None:
    doc = {
        "name": "Geometry.present",
        "description": "Java.",
        "parameters": {
            "type": "dict",
            "properties": {
                "controller": {"type": "String", "description": "c"},
                "flags": {"type": "HashMap", "description": "f"},
                "items": {"type": "ArrayList", "items": {"type": "String"}},
                "ok": {"type": "Boolean"},
            },
            "required": ["controller"],
        },
    }
    [function] = parse_tools(json.dumps([doc]), "t.json").functions
    props = function.parameters["properties"]
    assert [props[k]["type"] for k in ("controller", "flags", "items", "ok")] == [
        "string",
        "dict",
        "array",
        "boolean",
    ]


def test_java_type_names_in_a_json_schema_tool_are_still_an_error() -> None:
    with pytest.raises(ToolValidationError, match="unknown type"):
        parse_tools(mcp_tool({"controller": {"type": "String"}}), "t.json")


def test_required_in_an_array_item_schema_whose_properties_sit_in_branches_loads() -> None:
    item = {
        "type": "object",
        "oneOf": [
            {"properties": {"type": {"const": "paragraph"}, "text": {"type": "string"}}},
            {"properties": {"type": {"const": "heading"}, "level": {"type": "integer"}}},
        ],
        "required": ["type"],
    }
    text = mcp_tool({"children": {"type": "array", "items": item}})
    tools = parse_tools(text, "t.json")
    assert [f.name for f in tools.functions] == ["f"] and not tools.warnings


def test_sizes_are_limited() -> None:
    from bfcl_action.tools import ToolLimits

    long = "x" * 70
    text = f'[{{"name": "{long}", "description": "{"d" * 50}", "inputSchema": {{}}}}]'
    with pytest.raises(ToolValidationError) as info:
        parse_tools(text, "t.json", ToolLimits(max_description_chars=40))
    assert [(i.field, i.message, i.found) for i in info.value.issues] == [
        ("name", "tool name too long", "70 characters"),
        ("description", "description too long", "50 characters"),
    ]


def test_unresolvable_ref_is_an_error() -> None:
    text = mcp_tool({"p": {"$ref": "#/$defs/Missing"}})
    with pytest.raises(ToolValidationError) as info:
        parse_tools(text, "t.json")
    col = text.index('{"$ref"') + 1
    assert info.value.issues[0].render() == (
        f"t.json:1:{col}: tool f: inputSchema.properties.p: cannot resolve $ref '#/$defs/Missing'"
    )

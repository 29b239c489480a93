"""Every supported tool format loads into BFCL function docs with where each tool came from."""

import json
from pathlib import Path

import pytest

from bfcl_action.tools import ToolFormat, load_tools, parse_tools

FIXTURES = Path(__file__).parents[1] / "fixtures" / "tools"


@pytest.fixture(scope="module")
def valid():
    return load_tools(["valid/*"], base_dir=FIXTURES)


@pytest.mark.parametrize(
    ("name", "fmt", "file", "line"),
    [
        ("get_weather", ToolFormat.OPENAI_CHAT, "valid/openai_chat.json", 2),
        ("search_flights", ToolFormat.OPENAI_RESPONSES, "valid/openai_responses.json", 4),
        ("send_sms", ToolFormat.OPENAI_FUNCTIONS, "valid/legacy_functions.json", 1),
        ("read_file", ToolFormat.MCP, "valid/mcp_result.json", 2),
        ("create_issue", ToolFormat.MCP, "valid/mcp_tools.yaml", 2),
        ("get_stock_price", ToolFormat.ANTHROPIC, "valid/anthropic.yaml", 1),
        ("math.factorial", ToolFormat.BFCL, "valid/bfcl_docs.jsonl", 1),
        ("geometry.area_circle", ToolFormat.BFCL, "valid/bfcl_docs.jsonl", 2),
    ],
)
def test_each_format_is_detected_and_located(valid, name, fmt, file, line) -> None:
    fn = valid.by_name()[name]
    assert valid.formats[name] is fmt
    assert fn.source is not None
    assert (fn.source.file, fn.source.line) == (file, line)


def test_openai_chat_tool_normalises_to_bfcl_dialect(valid) -> None:
    fn = valid.by_name()["get_weather"]
    assert fn.description == "Current weather for a city."
    assert fn.parameters == {
        "type": "dict",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
        },
        "required": ["city"],
    }


def test_nullable_union_becomes_its_type_marked_nullable(valid) -> None:
    props = valid.by_name()["search_flights"].parameters["properties"]
    assert props["passengers"] == {"type": "integer", "nullable": True, "default": 1}


def test_mcp_any_of_with_null_becomes_nullable(valid) -> None:
    props = valid.by_name()["read_file"].parameters["properties"]
    assert props["encoding"] == {"type": "string", "nullable": True}


def test_local_refs_are_inlined(valid) -> None:
    props = valid.by_name()["create_issue"].parameters["properties"]
    assert props["priority"] == {"type": "string", "enum": ["low", "normal", "high"]}
    assert "$defs" not in valid.by_name()["create_issue"].parameters


def test_const_becomes_a_one_value_enum(valid) -> None:
    props = valid.by_name()["get_stock_price"].parameters["properties"]
    assert props["exchange"] == {"type": "string", "enum": ["NASDAQ"]}


def test_bfcl_docs_keep_their_dialect_and_dotted_names(valid) -> None:
    fn = valid.by_name()["geometry.area_circle"]
    assert fn.parameters["properties"]["radius"] == {"type": "float"}


def test_builtin_tools_are_skipped_with_a_warning(valid) -> None:
    assert [w.render() for w in valid.warnings] == [
        "valid/openai_responses.json:3:5: warning: tool web_search: type: "
        "built-in tool type 'web_search' has no schema; skipped"
    ]


def test_tool_without_parameters_gets_an_empty_object_schema() -> None:
    tools = parse_tools('[{"type": "function", "name": "ping", "description": "Ping."}]', "t.json")
    assert tools.functions[0].parameters == {"type": "dict", "properties": {}, "required": []}


def test_number_maps_to_float_and_object_to_dict() -> None:
    text = """
- name: locate
  description: Locate.
  input_schema:
    type: object
    properties:
      point:
        type: object
        properties:
          lat: {type: number}
"""
    fn = parse_tools(text, "t.yaml").functions[0]
    point = fn.parameters["properties"]["point"]
    assert point == {"type": "dict", "properties": {"lat": {"type": "float"}}}


def test_a_union_of_several_types_is_narrowed_with_a_warning() -> None:
    schema = {"type": "object", "properties": {"v": {"type": ["string", "integer"]}}}
    text = json.dumps([{"name": "f", "description": "F.", "inputSchema": schema}])
    tools = parse_tools(text, "t.json")
    assert tools.functions[0].parameters["properties"]["v"] == {"type": "string"}
    assert [w.message for w in tools.warnings] == [
        "union type ['string', 'integer'] narrowed to 'string' for BFCL's checker"
    ]

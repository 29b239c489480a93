"""The shapes real repositories keep their tools in, beyond the request formats: Gemini's
function declarations, maps keyed by tool name, SWE-agent and Dify parameter lists, VS Code
`languageModelTools`, MCP `.snap` snapshots, and parameters without their object wrapper."""

from __future__ import annotations

from pathlib import Path

import pytest

from bfcl_action.commands.init import find_tool_files
from bfcl_action.tools import ToolFormat, ToolValidationError, load_tools

FORMATS = Path(__file__).parents[1] / "fixtures" / "tools" / "formats"


def load(pattern: str):  # type: ignore[no-untyped-def]
    return load_tools([pattern], base_dir=FORMATS)


def test_gemini_declarations_load_with_lower_case_types_and_builtins_skipped() -> None:
    tools = load("gemini.json")
    assert [f.name for f in tools.functions] == ["find_hotel", "reset_search"]
    assert set(tools.formats.values()) == {ToolFormat.GEMINI}
    props = tools.by_name()["find_hotel"].parameters["properties"]
    assert props["city"]["type"] == "string"
    assert props["stars"] == {"type": "integer", "enum": [3, 4, 5]}
    assert props["amenities"] == {"type": "array", "items": {"type": "string"}}
    [skipped] = tools.warnings
    assert "googleSearch" in skipped.render() and "skipped" in skipped.render()
    assert tools.by_name()["find_hotel"].source.line == 4  # type: ignore[union-attr]


def test_tools_keyed_by_name_take_their_name_from_the_key() -> None:
    tools = load("name_keyed.yaml")
    assert [f.name for f in tools.functions] == ["convert_currency", "list_currencies"]
    assert tools.formats["convert_currency"] is ToolFormat.NAME_KEYED
    fn = tools.by_name()["convert_currency"]
    assert fn.parameters["required"] == ["amount", "to"]
    assert fn.source is not None and fn.source.line == 2


def test_swe_agent_tools_read_their_argument_lists() -> None:
    tools = load("swe_agent.yaml")
    assert [f.name for f in tools.functions] == ["goto", "scroll_up"]
    goto = tools.by_name()["goto"]
    assert goto.description == "moves the window to show <line_number>"
    assert goto.parameters["properties"]["line_number"]["type"] == "integer"
    assert goto.parameters["required"] == ["line_number"]
    assert tools.by_name()["scroll_up"].parameters["properties"] == {}


def test_a_dify_tool_offers_the_model_only_its_llm_parameters() -> None:
    [fn] = load("dify_tool.yaml").functions
    assert fn.name == "translate_text"
    assert fn.description == "Translate a text into another language."
    assert fn.parameters["properties"] == {
        "text": {"type": "string", "description": "The text to translate."},
        "target": {"type": "string", "enum": ["de", "fr"]},
    }
    assert fn.parameters["required"] == ["text", "target"]


def test_vscode_language_model_tools_load_from_package_json() -> None:
    tools = load("vscode/package.json")
    assert [f.name for f in tools.functions] == ["ext_searchDocs", "ext_openSettings"]
    assert tools.by_name()["ext_searchDocs"].description.startswith("Search the project")
    assert tools.formats["ext_openSettings"] is ToolFormat.VSCODE


def test_a_package_json_without_language_model_tools_holds_no_tool() -> None:
    tools = load("plain_package/package.json")
    assert tools.functions == [] and tools.files == ["plain_package/package.json"]


def test_mcp_snapshots_load_one_tool_per_snap_file() -> None:
    tools = load("toolsnaps/*.snap")
    assert sorted(f.name for f in tools.functions) == ["get_me", "get_repo"]
    assert set(tools.formats.values()) == {ToolFormat.MCP}


def test_parameters_without_the_object_wrapper_are_read_with_a_warning() -> None:
    tools = load("bare_parameters.json")
    [fn] = tools.functions
    assert sorted(fn.parameters["properties"]) == ["label", "time"]
    [warning] = tools.warnings
    text = warning.render()
    assert text.startswith("bare_parameters.json:5:")
    assert "without the `type: object` / `properties` wrapper" in text


def test_a_tool_list_nested_in_an_eval_config_is_read_and_said_where() -> None:
    tools = load("nested_config.yaml")
    assert [f.name for f in tools.functions] == ["lookup_order"]
    assert any("providers[0].config.tools" in w.render() for w in tools.warnings)


def test_an_unrecognised_tool_names_the_formats_it_resembles() -> None:
    with pytest.raises(ToolValidationError) as err:
        load("resembling.json")
    [issue] = err.value.issues
    assert "it resembles" in issue.message
    assert "MCP (name, description, inputSchema)" in issue.message
    assert "Anthropic (name, description, input_schema)" in issue.message


def test_init_proposes_snapshots_as_one_glob_and_finds_vscode_tools(tmp_path: Path) -> None:
    snaps = tmp_path / "pkg" / "__toolsnaps__"
    snaps.mkdir(parents=True)
    source = (FORMATS / "toolsnaps" / "get_repo.snap").read_text()
    for i in range(6):
        (snaps / f"tool_{i}.snap").write_text(source.replace("get_repo", f"tool_{i}"))
    (tmp_path / "package.json").write_text((FORMATS / "vscode" / "package.json").read_text())
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "package.json").write_text(
        (FORMATS / "plain_package" / "package.json").read_text()
    )
    assert find_tool_files(tmp_path) == [("package.json", 2), ("pkg/__toolsnaps__/*.snap", 6)]

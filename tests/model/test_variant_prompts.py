"""Format-sensitivity system prompts: the texts read from the wheel's prompt file, the three
function-doc formats, and the assembly per configuration (the conformance session compares
all 5,200 with bfcl-eval's own builder: tests/conformance/test_variant_prompts.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bfcl_action.checker.variants import PROMPT_CONFIGS, PromptTemplates, parse_config
from bfcl_action.core.errors import DatasetError
from bfcl_action.dataset.prompt_templates import read_prompt_templates
from bfcl_action.model.variant_prompts import function_doc_text, variant_system_prompt
from tests.support.bfcl_wheel import PROMPT_TEMPLATES_SOURCE

ORDER: dict[str, Any] = {
    "name": "shop.order",
    "description": "Order items.",
    "parameters": {
        "type": "dict",
        "properties": {
            "item": {"type": "string", "description": "What.", "enum": ["tea", "cake"]},
            "count": {"type": "integer", "description": "How many.", "default": 1},
            "tags": {"type": "array", "items": {"type": "string"}, "description": "Labels."},
            "extra": {
                "type": "dict",
                "description": "More.",
                "additionalProperties": {"type": "integer"},
            },
            "where": {
                "type": "dict",
                "description": "Address.",
                "properties": {
                    "city": {"type": "string", "description": "City."},
                    "zip": {"type": "string", "description": "Zip."},
                },
                "required": ["city"],
            },
            "note": {"type": "string", "description": "Note.", "default": "a, b"},
        },
        "required": ["item", "where"],
    },
}
PING: dict[str, Any] = {"name": "ping", "description": "Ping.", "parameters": {"type": "dict"}}


def templates() -> PromptTemplates:
    return read_prompt_templates(PROMPT_TEMPLATES_SOURCE, file="default_prompts.py")


def test_xml_docs_nest_params_and_mark_what_is_required() -> None:
    assert function_doc_text([ORDER], "xml") == (
        '<function name="shop.order">\n'
        "  <desc>Order items.</desc>\n"
        "  <params>\n"
        '    <param name="item" type="string" required="true">\n'
        "      <desc>What. Enum values: ['tea', 'cake'].</desc>\n"
        "    </param>\n"
        '    <param name="count" type="integer" required="false" default="1">\n'
        "      <desc>How many.</desc>\n"
        "    </param>\n"
        '    <param name="tags" type="array[string]" required="false">\n'
        "      <desc>Labels.</desc>\n"
        "    </param>\n"
        '    <param name="extra" type="dict[integer]" required="false">\n'
        "      <desc>More.</desc>\n"
        "    </param>\n"
        '    <param name="where" type="dict" required="true">\n'
        "      <desc>Address.</desc>\n"
        "      <params>\n"
        '        <param name="city" type="string" required="true">\n'
        "          <desc>City.</desc>\n"
        "        </param>\n"
        '        <param name="zip" type="string" required="false">\n'
        "          <desc>Zip.</desc>\n"
        "        </param>\n"
        "      </params>\n"
        "    </param>\n"
        # bfcl-eval drops every comma of an opening tag, a default's included
        '    <param name="note" type="string" required="false" default="\'a b\'">\n'
        "      <desc>Note.</desc>\n"
        "    </param>\n"
        "  </params>\n"
        "</function>\n"
    )


def test_xml_docs_without_a_required_list_require_everything() -> None:
    fn = {"name": "f", "description": "F.", "parameters": {"properties": {"a": {}}}}
    assert '<param name="a" type="string" required="true">' in function_doc_text([fn], "xml")


def test_python_docs_are_docstrings_with_typed_args() -> None:
    assert function_doc_text([ORDER], "python") == (
        "# Function: shop.order\n"
        '    """\n'
        "    Order items.\n\n"
        "    Args:\n"
        "        item (str): What. Enum values: ['tea', 'cake'].\n"
        "        count (int, default=1): How many.\n"
        "        tags (list[str]): Labels.\n"
        "        extra (dict[str, int]): More.\n"
        "        where (dict): Address.\n"
        "            city (str): City.\n"
        "            zip (str): Zip.\n"
        "        note (str, default='a, b'): Note.\n"
        '    """\n'
        "\n\n\n"
    )


def test_python_docs_of_several_functions_are_set_apart_by_blank_lines() -> None:
    ping = '# Function: ping\n    """\n    Ping.\n\n    """\n'
    assert function_doc_text([PING, PING], "python") == ping + "\n\n\n\n\n" + ping + "\n\n\n"


def test_json_docs_are_the_functions_indented() -> None:
    assert function_doc_text([ORDER, PING], "json") == json.dumps([ORDER, PING], indent=4)


def test_a_prompt_is_the_layout_filled_with_its_styles_pieces() -> None:
    config = parse_config(
        "ret_fmt=concise_xml&tool_call_tag=True&func_doc_fmt=python&prompt_fmt=markdown"
        "&style=experimental"
    )
    assert config is not None
    assert variant_system_prompt(templates(), config, [PING]) == (
        "EXPERIMENTAL-PERSONA.\n\n"
        "# TASK\nEXPERIMENTAL-TASK.\n\n"
        '# CALLS\nEXPERIMENTAL-TAG <TOOLCALL><functions><function name="f">'
        '<param name="a" type="integer">1</param></function></functions></TOOLCALL>. '
        "XML-TYPES: string, integer, float, boolean, array, dict, tuple.\n\n"
        "# TURNS\nEXPERIMENTAL-TURNS.\n\n"
        "# TOOLS\nEXPERIMENTAL-TOOLS (python):\n"
        '# Function: ping\n    """\n    Ping.\n\n    """\n\n\n\n\n'
    )


def test_the_26_configurations_give_26_prompts() -> None:
    prompts = {variant_system_prompt(templates(), c, [ORDER]) for c in PROMPT_CONFIGS}
    assert len(prompts) == 26


def test_the_reader_takes_literals_names_bound_before_and_joined_strings() -> None:
    found = templates()
    assert found.param_types["concise_xml"].startswith("XML-TYPES:")  # a name bound before
    assert "# TOOLS" in found.layouts["markdown"]  # implicit concatenation
    assert set(found.styles) == {"classic", "experimental"}


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda s: s.replace("PARAM_TYPE_MAPPING = {", "PARAM_TYPE_MAPPING = _fn() or {"),
            "PARAM_TYPE_MAPPING: no literal PARAM_TYPE_MAPPING in the file",
        ),
        (
            lambda s: s.replace('"EXPERIMENTAL-TURNS."', '"{user}"'),
            "PROMPT_STYLE_TEMPLATES['experimental']['multiturn_behavior']: unknown placeholder"
            " user (expected only none)",
        ),
        (
            lambda s: s.replace("{persona}{task}", "{persona.__class__}{task}"),
            "PROMPT_TEMPLATE_MAPPING['plaintext']: placeholder {persona.__class__} is not a plain",
        ),
        (
            lambda s: s.replace('    "concise_xml": _XML_TYPES,\n', ""),
            "PARAM_TYPE_MAPPING: no entry for concise_xml",
        ),
        (lambda s: s + "\n)(\n", "not Python source"),
    ],
)
def test_a_prompt_file_the_assembly_cannot_use_is_refused_naming_file_line_and_field(
    edit: Any, expected: str
) -> None:
    with pytest.raises(DatasetError) as caught:
        read_prompt_templates(edit(PROMPT_TEMPLATES_SOURCE), file="w:default_prompts.py")
    assert str(caught.value).startswith("w:default_prompts.py")
    assert expected in str(caught.value)


def test_the_refusal_names_the_line_of_the_constant() -> None:
    source = PROMPT_TEMPLATES_SOURCE.replace('"CLASSIC-TURNS."', '"{0}"')
    line = 1 + source[: source.index("PROMPT_STYLE_TEMPLATES =")].count("\n")
    with pytest.raises(DatasetError, match=rf"^p\.py:{line}: PROMPT_STYLE_TEMPLATES\["):
        read_prompt_templates(source, file="p.py")

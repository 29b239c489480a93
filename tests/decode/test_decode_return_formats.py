"""BFCL v4's format-sensitivity return formats: Python, JSON and two XML forms, tag or not."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bfcl_action.checker.variants import PROMPT_CONFIGS, parse_config, variant_of
from bfcl_action.core.records import Call
from bfcl_action.decode import DecodeError
from bfcl_action.decode.errors import DECODER_FAILED, WRONG_OUTPUT_FORMAT
from bfcl_action.decode.return_formats import ReturnFormat, decode_return_format, json_span

PY, JSON, VXML, CXML = (
    ReturnFormat.PYTHON,
    ReturnFormat.JSON,
    ReturnFormat.VERBOSE_XML,
    ReturnFormat.CONCISE_XML,
)
BFCL_JSON_RE = re.compile(r"\[\s*{.*?}\s*(?:,\s*{.*?}\s*)*\]", re.DOTALL)
"""The regex bfcl-eval finds the JSON call list with (what `json_span` must agree with)."""


def _error(text: str, fmt: ReturnFormat, tag: bool = False) -> str:
    with pytest.raises(DecodeError) as raised:
        decode_return_format(text, fmt, tool_call_tag=tag)
    return raised.value.error_type


def test_python_calls_inside_a_tool_call_tag() -> None:
    text = "Let me call it. <TOOLCALL>[get_weather(city='Paris')]</TOOLCALL>"
    assert decode_return_format(text, PY, tool_call_tag=True) == [
        Call("get_weather", {"city": "Paris"})
    ]
    assert _error("[get_weather(city='Paris')]", PY, tag=True) == DECODER_FAILED


def test_a_tagged_call_is_parsed_as_written_not_closed_for_the_model() -> None:
    assert _error("<TOOLCALL>f(a=1)]</TOOLCALL>", PY, tag=True) == DECODER_FAILED
    assert decode_return_format("<TOOLCALL>f(a=1)</TOOLCALL>", PY, tool_call_tag=True) == [
        Call("f", {"a": 1})
    ]


def test_json_calls_with_prose_around_them() -> None:
    text = 'Sure: [{"function": "f", "parameters": {"a": 1}}] done'
    assert decode_return_format(text, JSON, tool_call_tag=False) == [Call("f", {"a": 1})]


def test_json_that_does_not_parse_is_no_call_and_a_missing_key_does_not_decode() -> None:
    assert decode_return_format("no json here", JSON, tool_call_tag=False) == []
    assert _error('[{"function": "f", "arguments": {}}]', JSON) == DECODER_FAILED
    assert _error('[{"function": "f", "parameters": [1]}]', JSON) == WRONG_OUTPUT_FORMAT
    skipped = '[{"function": "f", "parameters": {}}, 7, "x"]'
    assert decode_return_format(skipped, JSON, tool_call_tag=False) == [Call("f", {})]


def test_verbose_and_concise_xml_convert_values_by_their_type() -> None:
    verbose = (
        '<functions><function name="f"><params>'
        '<param name="n" value="3" type="integer"/><param name="xs" value="[1, 2]" type="array"/>'
        '<param name="ok" value="True" type="boolean"/><param name="s" value="hi"/>'
        "</params></function></functions>"
    )
    assert decode_return_format(verbose, VXML, tool_call_tag=False) == [
        Call("f", {"n": 3, "xs": [1, 2], "ok": True, "s": "hi"})
    ]
    concise = (
        '<functions><function name="g"><param name="x" type="float"> 2.5 </param>'
        '<param name="d" type="dict">{"k": 1}</param></function></functions>'
    )
    assert decode_return_format(concise, CXML, tool_call_tag=False) == [
        Call("g", {"x": 2.5, "d": {"k": 1}})
    ]


def test_xml_values_are_literals_never_code() -> None:
    text = (
        '<functions><function name="f"><param name="x" type="array">'
        "__import__('os').system('true')</param></function></functions>"
    )
    assert _error(text, CXML) == DECODER_FAILED


def test_xml_with_entity_declarations_is_refused() -> None:
    bomb = (
        '<!DOCTYPE functions [<!ENTITY a "aaaaaaaaaa">]>'
        '<functions><function name="&a;"/></functions>'
    )
    assert _error(bomb, VXML) == DECODER_FAILED


def test_there_are_bfcls_26_configurations_in_its_order() -> None:
    assert len(PROMPT_CONFIGS) == 26
    assert PROMPT_CONFIGS[0].key == (
        "ret_fmt=python&tool_call_tag=True&func_doc_fmt=python&prompt_fmt=plaintext&style=classic"
    )
    assert [parse_config(c.key) for c in PROMPT_CONFIGS] == PROMPT_CONFIGS


def test_a_variant_id_names_its_configuration_and_entry_category() -> None:
    found = variant_of(f"format_sensitivity_3:{PROMPT_CONFIGS[5].key}:live_simple_23-5-1")
    assert found is not None
    assert (found[0], found[1].name) == (PROMPT_CONFIGS[5], "live_simple")
    assert variant_of("format_sensitivity_3:ret_fmt=yaml:simple_python_1") is None


@settings(max_examples=3000)
@given(st.text(alphabet="[]{}, a\n\t", max_size=16))
def test_json_span_finds_what_bfcl_evals_regex_finds(text: str) -> None:
    match = BFCL_JSON_RE.search(text)
    assert json_span(text) == (match.span() if match else None)

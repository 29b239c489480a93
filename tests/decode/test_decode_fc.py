"""FC-mode decoding: BFCL result items `{name: "<json args>"}` and OpenAI tool calls."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from bfcl_action.core.records import Call, Mode
from bfcl_action.decode import (
    DECODER_FAILED,
    WRONG_OUTPUT_FORMAT,
    DecodeError,
    decode_fc,
    decode_output,
)


def error_type_of(output: object) -> str:
    with pytest.raises(DecodeError) as caught:
        decode_fc(output)
    return caught.value.error_type


def test_json_string_arguments_are_parsed() -> None:
    output = [{"get_weather": '{"city": "Paris", "days": 3}'}]
    assert decode_fc(output) == [Call(name="get_weather", arguments={"city": "Paris", "days": 3})]


def test_calls_keep_their_order() -> None:
    output = [{"b": "{}"}, {"a": '{"x": 1}'}]
    assert [call.name for call in decode_fc(output)] == ["b", "a"]


def test_already_parsed_arguments_are_accepted() -> None:
    assert decode_fc([{"f": {"x": [1, 2]}}]) == [Call(name="f", arguments={"x": [1, 2]})]


def test_openai_tool_call_dicts_are_read() -> None:
    tool_call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "f", "arguments": '{"x": 1}'},
    }
    assert decode_fc([tool_call]) == [Call(name="f", arguments={"x": 1})]


def test_openai_tool_call_objects_are_read() -> None:
    tool_call = SimpleNamespace(
        id="call_1", type="function", function=SimpleNamespace(name="f", arguments="{}")
    )
    assert decode_fc([tool_call]) == [Call(name="f")]


def test_a_function_named_function_is_not_mistaken_for_a_tool_call() -> None:
    assert decode_fc([{"function": '{"name": "x"}'}]) == [
        Call(name="function", arguments={"name": "x"})
    ]


def test_call_objects_pass_through() -> None:
    call = Call(name="f", arguments={"x": 1})
    assert decode_fc([call]) == [call]


def test_only_the_first_key_of_an_item_is_used_as_upstream_does() -> None:
    assert decode_fc([{"f": "{}", "g": "{}"}]) == [Call(name="f")]


@pytest.mark.parametrize("output", ["", [], (), {}])
def test_empty_output_is_no_call(output: object) -> None:
    assert decode_fc(output) == []


@pytest.mark.parametrize("output", ["I cannot help with that.", None, 42, 1.5, True])
def test_output_that_is_not_a_list_fails(output: object) -> None:
    assert error_type_of(output) == DECODER_FAILED


def test_a_single_mapping_instead_of_a_list_fails() -> None:
    assert error_type_of({"f": "{}"}) == DECODER_FAILED


@pytest.mark.parametrize("item", ["f", 3, None, ["f", "{}"], {}])
def test_an_item_that_is_not_a_non_empty_mapping_fails(item: object) -> None:
    assert error_type_of([item]) == DECODER_FAILED


@pytest.mark.parametrize("arguments", ["{", "{'a': 1}", "", "{} {}", "\ufeff{}"])
def test_invalid_json_arguments_fail(arguments: str) -> None:
    assert error_type_of([{"f": arguments}]) == DECODER_FAILED


@pytest.mark.parametrize("arguments", [3, None, [1], 2.5])
def test_arguments_that_are_neither_text_nor_mapping_fail(arguments: object) -> None:
    assert error_type_of([{"f": arguments}]) == DECODER_FAILED


@pytest.mark.parametrize("arguments", ["[]", "null", "3", '"{\\"a\\": 1}"', "true"])
def test_json_that_is_not_an_object_is_the_wrong_output_format(arguments: str) -> None:
    assert error_type_of([{"f": arguments}]) == WRONG_OUTPUT_FORMAT


def test_a_name_that_is_not_a_string_is_the_wrong_output_format() -> None:
    assert error_type_of([{1: "{}"}]) == WRONG_OUTPUT_FORMAT


def test_json_extensions_python_accepts_are_accepted() -> None:
    (call,) = decode_fc([{"f": '{"x": NaN, "y": -Infinity, "x2": 1, "x2": 2}'}])
    assert call.arguments["y"] == float("-inf")
    assert call.arguments["x2"] == 2


def test_bytes_arguments_are_json_too() -> None:
    assert decode_fc([{"f": b'{"x": 1}'}]) == [Call(name="f", arguments={"x": 1})]


def test_decode_output_in_fc_mode_uses_the_fc_rules() -> None:
    output = [{"f": json.dumps({"x": 1})}]
    assert decode_output(output, mode=Mode.FC) == [Call(name="f", arguments={"x": 1})]


def test_decode_output_accepts_a_decoded_call_list_in_prompt_mode() -> None:
    assert decode_output([{"f": {"x": 1}}], mode="prompt") == [Call(name="f", arguments={"x": 1})]


def test_decode_output_sends_prompt_text_to_the_prompt_decoder() -> None:
    assert decode_output("[f(x=1)]", mode="prompt", language="python") == [
        Call(name="f", arguments={"x": 1})
    ]


def test_responses_api_function_call_items_are_read() -> None:
    item = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": '{"x": 1}'}
    assert decode_fc([item]) == [Call(name="f", arguments={"x": 1})]


def test_responses_api_function_call_objects_are_read() -> None:
    item = SimpleNamespace(type="function_call", name="f", arguments="{}", call_id="c1")
    assert decode_fc([item]) == [Call(name="f")]

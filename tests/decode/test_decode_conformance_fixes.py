"""Decoding rules found by the conformance harness (tests/conformance), one test each."""

from __future__ import annotations

import pytest

from bfcl_action.core.records import Call
from bfcl_action.decode import WRONG_OUTPUT_FORMAT, DecodeError, decode_fc, decode_prompt


def test_a_decoded_call_with_two_keys_is_the_wrong_output_format() -> None:
    with pytest.raises(DecodeError) as caught:
        decode_fc([{"f": {"x": 1}, "g": {}}])
    assert caught.value.error_type == WRONG_OUTPUT_FORMAT


def test_an_fc_json_item_with_two_keys_still_uses_its_first_key() -> None:
    assert decode_fc([{"f": '{"x": 1}', "g": "{}"}]) == [Call(name="f", arguments={"x": 1})]


def test_a_javascript_string_may_end_in_raw_newlines_before_its_quote() -> None:
    calls = decode_prompt("[f(a=\"x\n\", b='y \n\t')]", "javascript")
    assert calls == [Call(name="f", arguments={"a": "x\n", "b": "y \n\t"})]


@pytest.mark.parametrize("text", ['[f(a="x\ny")]', '[f(a="\nx")]'])
def test_a_javascript_string_with_text_after_a_raw_newline_does_not_decode(text: str) -> None:
    with pytest.raises(DecodeError):
        decode_prompt(text, "javascript")

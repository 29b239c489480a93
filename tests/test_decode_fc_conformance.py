"""FC decoding rules found by the conformance harness (tests/conformance)."""

from __future__ import annotations

import pytest

from bfcl_action.decode import WRONG_OUTPUT_FORMAT, DecodeError, decode_fc
from bfcl_action.models import Call


def test_a_decoded_call_with_two_keys_is_the_wrong_output_format() -> None:
    with pytest.raises(DecodeError) as caught:
        decode_fc([{"f": {"x": 1}, "g": {}}])
    assert caught.value.error_type == WRONG_OUTPUT_FORMAT


def test_an_fc_json_item_with_two_keys_still_uses_its_first_key() -> None:
    assert decode_fc([{"f": '{"x": 1}', "g": "{}"}]) == [Call(name="f", arguments={"x": 1})]

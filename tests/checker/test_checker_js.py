"""JavaScript values: source text converted by the schema type, then BFCL's usual checks."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bfcl_action.checker import CheckVerdict, check_calls
from bfcl_action.checker.js_types import JS_TYPES, convert_js
from bfcl_action.core.records import Language
from tests.support.checker_cases import call, case, fn


def check_js(schema: dict[str, Any], options: list[Any], value: Any) -> CheckVerdict:
    doc = fn("run", ("x",), x=schema)
    test = case("simple_javascript", [doc], [{"run": {"x": options}}], Language.JAVASCRIPT)
    return check_calls(test, [call("run", x=value)])


@pytest.mark.parametrize(
    ("text", "type_name", "value"),
    [
        ("'abc'", "String", "abc"),
        ('"abc"', "String", "abc"),
        ("abc", "String", "abc"),
        ("12", "integer", 12),
        ("2.5", "float", 2.5),
        ("3", "float", 3.0),
        ("10n", "Bigint", 10),
        ("true", "Boolean", True),
        ("x + 1", "any", "x + 1"),
    ],
)
def test_scalar_text_converts_by_type(text: str, type_name: str, value: Any) -> None:
    assert convert_js(text, type_name) == value


def test_float_with_exponent_stays_text() -> None:
    assert convert_js("1e3", "float") == "1e3"


def test_array_items_convert_by_item_type() -> None:
    assert convert_js("['a', 'b']", "array", "String") == ["a", "b"]


def test_new_array_form() -> None:
    assert convert_js("new Array(1, 2)", "array", "integer") == [1, 2]


def test_two_dimensional_array_items_are_untyped_literals() -> None:
    assert convert_js("[[1, 'a'], [2]]", "array", "array") == [[1, "a"], [2]]


def test_text_after_the_array_is_ignored() -> None:
    assert convert_js("[1, 2] junk", "array", "integer") == [1, 2]


def test_unclosed_nested_array_is_read_in_linear_time() -> None:
    text = "[[1]" + ",[1]" * 3000 + ",x"
    assert convert_js(text, "array", "integer") == text


def test_object_literal_becomes_a_dict() -> None:
    assert convert_js("{key: 'v', n: 5, on: true}", "dict") == {"key": "v", "n": 5, "on": True}


def test_object_quoted_numbers_become_numbers() -> None:
    assert convert_js("{n: '5'}", "dict") == {"n": 5}


def test_empty_object() -> None:
    assert convert_js("{}", "dict") == {}


def test_js_value_must_be_source_text() -> None:
    assert check_js({"type": "integer"}, [5], 5).error_type == "type_error:js"


def test_js_quoted_string_matches_answer() -> None:
    assert check_js({"type": "String"}, ["user-123"], "'user 123'").valid


def test_js_integer_text_for_integer_answer() -> None:
    assert check_js({"type": "integer"}, [5], "5").valid


def test_js_unreadable_integer_is_type_error() -> None:
    assert check_js({"type": "integer"}, [5], "five").error_type == "type_error:simple"


def test_js_object_compares_like_a_dict() -> None:
    assert check_js({"type": "dict"}, [{"a": [1]}], "{a: 1}").valid


def test_js_array_compares_like_a_list() -> None:
    schema = {"type": "array", "items": {"type": "String"}}
    assert check_js(schema, [["x", "y"]], '["x", "y"]').valid


@given(st.text(), st.sampled_from(sorted(JS_TYPES)), st.sampled_from(["integer", "String", None]))
def test_any_text_converts_without_raising(text: str, type_name: str, item: str | None) -> None:
    convert_js(text, type_name, item)

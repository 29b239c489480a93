"""Java values: source text converted by the schema type, then BFCL's usual checks."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bfcl_action.checker import CheckVerdict, check_calls
from bfcl_action.checker.java_types import JAVA_TYPES, convert_java
from bfcl_action.core.records import Language
from tests.support.checker_cases import call, case, fn


def check_java(schema: dict[str, Any], options: list[Any], value: Any) -> CheckVerdict:
    doc = fn("Util.run", ("x",), x=schema)
    test = case("simple_java", [doc], [{"Util.run": {"x": options}}], Language.JAVA)
    return check_calls(test, [call("Util.run", x=value)])


@pytest.mark.parametrize(
    ("text", "type_name", "value"),
    [
        ("42", "integer", 42),
        ("-7", "short", -7),
        ("9L", "long", 9),
        ("1.5f", "float", 1.5),
        ("2e3F", "float", 2000.0),
        ("2.25", "double", 2.25),
        ("true", "boolean", True),
        ("false", "boolean", False),
        ("hello", "String", "hello"),
        ("'a'", "char", "'a'"),
    ],
)
def test_scalar_text_converts_by_type(text: str, type_name: str, value: Any) -> None:
    assert convert_java(text, type_name) == value


@pytest.mark.parametrize(
    ("text", "type_name"),
    [("42.0", "integer"), ("9", "long"), ("1.5", "float"), ("1.5f", "double"), ("True", "boolean")],
)
def test_text_that_does_not_fit_the_type_stays_text(text: str, type_name: str) -> None:
    assert convert_java(text, type_name) == text


def test_array_items_convert_by_item_type() -> None:
    assert convert_java("new int[]{1, 2, 3}", "Array", "integer") == [1, 2, 3]


def test_string_array_items_keep_their_quotes() -> None:
    assert convert_java('new String[]{"a", "b"}', "Array", "String") == ['"a"', '"b"']


def test_array_list_string_items_lose_their_quotes() -> None:
    text = 'new ArrayList<>(Arrays.asList("a", "b"))'
    assert convert_java(text, "ArrayList", "String") == ["a", "b"]


def test_double_brace_array_list_reads_add_calls() -> None:
    text = "new ArrayList<Integer>() {{ add(1); add(2); }}"
    assert convert_java(text, "ArrayList", "integer") == [1, 2]


def test_empty_array_list() -> None:
    assert convert_java("new ArrayList<>()", "ArrayList", "String") == []


def test_hash_map_reads_put_calls_as_literals() -> None:
    text = 'new HashMap<String, Object>() {{ put("a", 1); put("b", "x"); put("c", 2L); }}'
    assert convert_java(text, "HashMap") == {"a": 1, "b": "x", "c": 2}


def test_empty_hash_map() -> None:
    assert convert_java("new HashMap<>()", "HashMap") == {}


def test_unconvertible_collection_stays_text() -> None:
    assert convert_java("Arrays.asList(1)", "ArrayList", "integer") == "Arrays.asList(1)"


def test_java_value_must_be_source_text() -> None:
    assert check_java({"type": "integer"}, [5], 5).error_type == "type_error:java"


def test_java_integer_text_matches_integer_answer() -> None:
    assert check_java({"type": "integer"}, [5], "5").valid


def test_java_long_without_suffix_is_type_error() -> None:
    assert check_java({"type": "long"}, [5], "5").error_type == "type_error:simple"


def test_java_any_is_compared_as_normalised_string() -> None:
    assert check_java({"type": "any"}, ["mapController"], "MapController").valid


def test_java_hash_map_compares_like_a_dict() -> None:
    text = 'new HashMap<String, String>() {{ put("limit", "50"); }}'
    assert check_java({"type": "HashMap"}, [{"limit": ["50"]}], text).valid


def test_java_array_compares_like_a_list() -> None:
    schema = {"type": "Array", "items": {"type": "integer"}}
    assert check_java(schema, [[1, 2]], "new int[]{1, 2}").valid


def test_java_string_array_never_matches_unquoted_answer() -> None:
    schema = {"type": "Array", "items": {"type": "String"}}
    verdict = check_java(schema, [["a"]], 'new String[]{"a"}')
    assert verdict.error_type == "value_error:list/tuple"


def test_unknown_java_type_is_an_invalid_case() -> None:
    assert check_java({"type": "Widget"}, ["w"], "w").error_type == "checker:invalid_case"


@given(st.text(), st.sampled_from(sorted(JAVA_TYPES)), st.sampled_from(["integer", "String", None]))
def test_any_text_converts_without_raising(text: str, type_name: str, item: str | None) -> None:
    convert_java(text, type_name, item)

"""String normalisation (properties) and the checker's purity and robustness."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bfcl_action.checker import check_calls, normalize_text
from bfcl_action.core.records import Call
from tests.support.checker_cases import INTEGER, STRING, array, call, case, fn

_DROPPED = re.compile(r"[ ,./\-_*^]")


_ASCII = st.text(st.characters(max_codepoint=127))
"""ASCII text takes a faster route through `normalize_text` than the rest."""


@given(st.text() | _ASCII)
def test_normalize_equals_remove_then_lower_then_requote(text: str) -> None:
    assert normalize_text(text) == _DROPPED.sub("", text).lower().replace("'", '"')


@given(st.text())
def test_normalize_is_idempotent(text: str) -> None:
    assert normalize_text(normalize_text(text)) == normalize_text(text)


@given(st.text())
def test_normalized_text_has_no_dropped_characters(text: str) -> None:
    assert not _DROPPED.search(normalize_text(text))


def test_tabs_and_newlines_are_kept() -> None:
    assert normalize_text("a\tb\nc") == "a\tb\nc"


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=10,
)


@given(st.dictionaries(st.text(max_size=5), _VALUES, max_size=4))
def test_any_arguments_get_a_verdict_and_the_same_one_twice(arguments: dict[str, Any]) -> None:
    test = case("simple_python", [fn("f", x=STRING)], [{"f": {"x": ["a", ""]}}])
    calls = [Call(name="f", arguments=arguments)]
    first = check_calls(test, calls)
    assert first == check_calls(test, calls)
    value = arguments.get("x")
    accepted = set(arguments) <= {"x"} and (
        "x" not in arguments or (type(value) is str and normalize_text(value) in ("a", ""))
    )
    assert first.valid == accepted


def test_huge_string_argument_is_checked_quickly() -> None:
    test = case("simple_python", [fn("f", x=STRING)], [{"f": {"x": ["a"]}}])
    verdict = check_calls(test, [call("f", x="a" * 10_000_000)])
    assert verdict.error_type == "value_error:string"
    assert len(verdict.error[0]) < 1000


def test_unknown_category_is_a_verdict_not_an_exception() -> None:
    test = case("simple_python", [fn("f")], [{"f": {}}]).model_copy(update={"category": "nope"})
    assert check_calls(test, [call("f")]).error_type == "checker:unsupported_category"


def _deep(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def test_deeply_nested_argument_gets_a_verdict() -> None:
    test = case("simple_python", [fn("f", x=array("integer"))], [{"f": {"x": [[1]]}}])
    verdict = check_calls(test, [call("f", x=_deep(200_000))])
    assert verdict.error_type == "type_error:nested"


def test_argument_too_deep_to_compare_is_its_own_error_type() -> None:
    test = case("simple_python", [fn("f", x=INTEGER)], [{"f": {"x": [_deep(200_000)]}}])
    assert check_calls(test, [call("f", x=_deep(200_000))]).error_type == "checker:value_too_deep"

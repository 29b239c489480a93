"""Prompt-mode Java call text: one call, values as strings of source text (upstream's rules)."""

from __future__ import annotations

import pytest

from bfcl_action.core.records import Call
from bfcl_action.decode import (
    DECODER_FAILED,
    POSITIONAL_KEY,
    WRONG_OUTPUT_FORMAT,
    DecodeError,
    decode_prompt,
)


def decode(text: str) -> list[Call]:
    return decode_prompt(text, "java")


def arguments(text: str) -> dict[str, object]:
    (call,) = decode(text)
    return dict(call.arguments)


def error_type(text: str) -> str:
    with pytest.raises(DecodeError) as caught:
        decode(text)
    return caught.value.error_type


@pytest.mark.parametrize(
    "text",
    [
        'Foo.bar(x=10, s="a b")',
        '[Foo.bar(x=10, s="a b")]',
        'Foo.bar(x=10, s="a b");',
        '```\nFoo.bar(x=10, s="a b")\n```',
        'Foo.bar(\n  x=10,\n  s="a b"\n)',
    ],
)
def test_a_call_decodes_with_or_without_brackets_semicolon_or_fence(text: str) -> None:
    assert decode(text) == [Call(name="Foo.bar", arguments={"x": "10", "s": "a b"})]


def test_a_fence_with_the_language_word_fails_as_upstream() -> None:
    assert error_type('```java\nFoo.bar(x=10, s="a b")\n```') == DECODER_FAILED


def test_values_are_source_text() -> None:
    assert arguments("f(a=10L, b=2.5f, c=true, d=null, e=0x1F, g=-3)") == {
        "a": "10L",
        "b": "2.5f",
        "c": "true",
        "d": "null",
        "e": "0x1F",
        "g": "-3",
    }


def test_a_string_literal_loses_its_quotes_but_keeps_its_escapes() -> None:
    assert arguments(r'f(a="say \"hi\"", b=' + "'c')") == {"a": r"say \"hi\"", "b": "c"}


def test_nested_string_literals_keep_their_quotes() -> None:
    assert arguments('f(a=new String[]{"x", "y"}, b=1)') == {"a": 'new String[]{"x","y"}', "b": "1"}


def test_array_creation_keeps_one_pair_of_brackets() -> None:
    assert arguments("f(a=new int[][]{{1, 2}, {3}}, b=1)")["a"] == "new int[]{{1,2},{3}}"


def test_array_creation_without_initializer_fails_as_upstream() -> None:
    assert error_type("f(a=new int[3], b=1)") == DECODER_FAILED


def test_object_creation_is_normalised_and_drops_an_anonymous_body() -> None:
    text = 'f(a=new HashMap<String, Integer>() {{ put("k", 1); }}, b=new Point(1,2))'
    assert arguments(text) == {"a": "new HashMap<String,Integer>()", "b": "new Point(1, 2)"}


def test_method_calls_identifiers_and_class_literals_keep_their_exact_text() -> None:
    assert arguments("f(a=Paths.get( '/x' ), b=my . field, c=String . class)") == {
        "a": "Paths.get( '/x' )",
        "b": "my.field",
        "c": "String . class",
    }


def test_other_expressions_are_joined_without_spaces() -> None:
    assert arguments("f(a=1 + 2 * 3, b=x -> x + 1, c=(int) 2.5, d=a ? b : c)") == {
        "a": "1+2*3",
        "b": "x->x+1",
        "c": "(int)2.5",
        "d": "a?b:c",
    }


def test_only_the_first_call_is_returned_outer_before_inner() -> None:
    assert decode("f(a=g(x=1), b=2); h(c=3)") == [
        Call(name="f", arguments={"a": "g(x=1)", "b": "2"})
    ]


def test_a_call_on_a_call_is_named_by_the_receiver_text() -> None:
    assert decode("x.f(a=1, b=2).g(c=3)")[0].name == "x.f(a=1, b=2).g"


def test_a_positional_identifier_is_kept_under_the_positional_key() -> None:
    assert arguments("f(x, b=2, 7)") == {POSITIONAL_KEY: "x", "b": "2"}


@pytest.mark.parametrize("text", ["f(a=1, a=2, c=3)", "f(x, y, c=3)"])
def test_a_repeated_name_fails(text: str) -> None:
    assert error_type(text) == DECODER_FAILED


def test_text_without_a_call_is_the_wrong_output_format() -> None:
    assert error_type("new Foo(a=1, b=2)") == WRONG_OUTPUT_FORMAT


def test_a_short_call_without_semicolon_fails_as_tree_sitter_does() -> None:
    assert error_type("f(a=1)") == DECODER_FAILED
    assert arguments("f(a=1);") == {"a": "1"}
    assert error_type("fn(a=1, b)") == DECODER_FAILED
    assert arguments("fnc(a=1, b)") == {"a": "1", POSITIONAL_KEY: "b"}


def test_an_assignment_inside_an_operator_is_not_an_argument() -> None:
    assert arguments("f(a-b=1, c=2)") == {"c": "2"}


def test_text_is_cut_with_byte_offsets_after_non_ascii_as_upstream() -> None:
    assert arguments('f(a="é", bc=xyz)') == {"a": 'é"', "c=": "yz)"}


@pytest.mark.parametrize(
    "text",
    ["f(a=1, b=2", "f(a=1, b=2))", "f(a=1, b=2), g(c=3, d=4)", "Here is f(a=1, b=2)."],
)
def test_malformed_text_fails(text: str) -> None:
    assert error_type(text) == DECODER_FAILED

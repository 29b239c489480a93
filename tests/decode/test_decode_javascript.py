"""Prompt-mode JavaScript call text: one call, values as raw source text (upstream's rules)."""

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
    return decode_prompt(text, "javascript")


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
        "obj.fn(x=1)",
        "[obj.fn(x=1)]",
        "obj.fn(x=1);",
        "```javascript\nobj.fn(x=1)\n```",
        "obj.fn(\n  x=1,\n)",
    ],
)
def test_a_call_decodes_with_or_without_brackets_semicolon_or_fence(text: str) -> None:
    assert decode(text) == [Call(name="obj.fn", arguments={"x": "1"})]


def test_values_are_raw_source_text_with_spacing_kept() -> None:
    assert arguments("f(a=[1, 2], b={k: [3,4]}, c=x => x * 2, d=1n)") == {
        "a": "[1, 2]",
        "b": "{k: [3,4]}",
        "c": "x => x * 2",
        "d": "1n",
    }


def test_one_pair_of_quotes_is_removed_escapes_kept() -> None:
    assert arguments(r"""f(a="x\"y", b='z', c=`t`, d="a" + "b")""") == {
        "a": r"x\"y",
        "b": "z",
        "c": "`t`",
        "d": 'a" + "b',
    }


def test_the_name_is_the_source_text_of_the_callee() -> None:
    assert decode("f(a=1)(b=2)") == [Call(name="f(a=1)", arguments={"b": "2"})]


def test_positional_identifiers_and_true_are_kept_other_positionals_dropped() -> None:
    assert arguments("f(x, 1, false, b=2)") == {POSITIONAL_KEY: "x", "b": "2"}
    assert arguments("f(true)") == {POSITIONAL_KEY: "true"}


@pytest.mark.parametrize("text", ["f(a=1, a=2)", "f(x, true)"])
def test_a_repeated_name_fails(text: str) -> None:
    assert error_type(text) == DECODER_FAILED


def test_only_the_first_statement_that_is_a_call_counts() -> None:
    assert decode("x = g(a=1)\nf(b=2)\nh(c=3)") == [Call(name="f", arguments={"b": "2"})]


@pytest.mark.parametrize("text", ["x = f(a=1)", "await f(a=1)", "f(a=1), g(b=2)", "", "42"])
def test_text_without_a_call_statement_is_the_wrong_output_format(text: str) -> None:
    assert error_type(text) == WRONG_OUTPUT_FORMAT


@pytest.mark.parametrize(
    "text",
    ["f(a=1", "f(a=1))", "f(a=1) g(b=2)", "f(a=1).", 'f(a="\\uZZ")', "f(a=`x)"],
)
def test_malformed_text_fails(text: str) -> None:
    assert error_type(text) == DECODER_FAILED


@pytest.mark.parametrize(
    ("text", "value"),
    [("f(a=/x/gi)", "/x/gi"), ("f(a=/ab/cd/ef)", "/ab/cd/ef"), ("f(a=/x/g.source)", "/x/g.source")],
)
def test_regex_flags_are_lowercase_letters_then_the_expression_goes_on(
    text: str, value: str
) -> None:
    assert arguments(text) == {"a": value}


@pytest.mark.parametrize(
    "text", ["f(dir=/projects/myApp/node_modules/react)", "f(a=/x/g2)", "f(a=/x/_)"]
)
def test_an_unquoted_path_whose_regex_flags_run_into_a_name_fails(text: str) -> None:
    # `/projects/myApp/...` is the regex `/projects/` with flags `my`, then `App`: two
    # expressions side by side, which tree-sitter (and so upstream) rejects.
    assert error_type(text) == DECODER_FAILED

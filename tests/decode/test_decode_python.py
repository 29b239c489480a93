"""Prompt-mode Python call lists: what is kept, how values come out, what fails."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from bfcl_action.core.records import Call
from bfcl_action.decode import DECODER_FAILED, KWARGS_KEY, DecodeError, decode_prompt


def decode(text: str) -> list[Call]:
    return decode_prompt(text, "python")


def argument(text: str) -> Any:
    """The value of `a` in `f(a=<text>)`."""
    (call,) = decode(f"f(a={text})")
    return call.arguments["a"]


def fails(text: str) -> bool:
    with pytest.raises(DecodeError) as caught:
        decode(text)
    return caught.value.error_type == DECODER_FAILED


# Text clean-up


@pytest.mark.parametrize(
    "text",
    [
        "f(x=1)",
        "[f(x=1)]",
        "  [f(x=1)]\n",
        "```\nf(x=1)\n```",
        "`f(x=1)`",
        "\tf(x=1)\r\n",
    ],
)
def test_brackets_backticks_and_surrounding_space_are_optional(text: str) -> None:
    assert decode(text) == [Call(name="f", arguments={"x": 1})]


def test_a_fence_with_a_language_word_fails_as_upstream() -> None:
    assert fails("```python\nf(x=1)\n```")


@pytest.mark.parametrize("text", ["", "[]", "``````", "\n \n"])
def test_empty_text_and_empty_list_are_no_call(text: str) -> None:
    assert decode(text) == []


@pytest.mark.parametrize(
    "text",
    ["I would call f.", "f(x=1); g(y=2)", "f(x=1)\ng(y=2)", "(f(x=1), g(y=2))", "'f(x=1)'"],
)
def test_text_that_is_not_a_list_of_calls_fails(text: str) -> None:
    assert fails(text)


def test_several_calls_are_separated_by_commas() -> None:
    assert [call.name for call in decode("f(x=1), g(y=2)")] == ["f", "g"]


# Names and arguments


def test_dotted_names_are_kept_whole() -> None:
    assert decode("math.geometry.area(r=1)")[0].name == "math.geometry.area"


def test_a_name_not_rooted_in_an_identifier_keeps_its_attributes_only() -> None:
    assert decode("x[0].f(a=1)")[0].name == "f"
    assert decode("f(a=1)(b=2)") == [Call(name="", arguments={"b": 2})]


def test_positional_and_star_arguments_are_dropped() -> None:
    assert decode("f(1, *rest, a=2)") == [Call(name="f", arguments={"a": 2})]


def test_a_repeated_keyword_keeps_the_last_value() -> None:
    assert decode("f(a=1, a=2)") == [Call(name="f", arguments={"a": 2})]


def test_double_star_mapping_is_kept_under_a_key_no_parameter_can_have() -> None:
    assert decode("f(**{'a': 1})") == [Call(name="f", arguments={KWARGS_KEY: {"a": 1}})]


# Values


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", 1),
        ("-1.5", -1.5),
        ("1e999", float("inf")),
        ("0x10", 16),
        ("1_000", 1000),
        ("'it'", "it"),
        ('"a" "b"', "ab"),
        ("True", True),
        ("None", None),
        ("[1, [2]]", [1, [2]]),
        ("{'k': {'n': None}}", {"k": {"n": None}}),
        ("(1, 2)", (1, 2)),
        ("b'x'", b"x"),
        ("1j", 1j),
    ],
)
def test_literals_keep_their_python_value(text: str, value: Any) -> None:
    result = argument(text)
    assert result == value
    assert type(result) is type(value)


def test_ellipsis_becomes_the_string_of_three_dots() -> None:
    assert argument("...") == "..."


@pytest.mark.parametrize("text", ["true", "null", "Paris"])
def test_a_bare_name_becomes_its_own_text(text: str) -> None:
    assert argument(text) == text


def test_a_nested_call_with_keywords_becomes_a_call_mapping() -> None:
    assert argument("g(1, b=[h(c=2)])") == {"g": {"b": [{"h": {"c": 2}}]}}


def test_a_nested_call_without_keywords_becomes_its_normalised_source() -> None:
    assert argument("g(  1 ,'x' )") == "g(1, 'x')"


def test_a_subscript_becomes_its_normalised_source() -> None:
    assert argument('x["k"][1:2]') == "x['k'][1:2]"


@pytest.mark.parametrize(("text", "value"), [("+5", -5), ("~3", -3), ("not True", -1)])
def test_any_unary_operator_on_a_number_negates_it_as_upstream(text: str, value: int) -> None:
    assert argument(text) == value


@pytest.mark.parametrize("text", ["-x", "--1", "-'s'", "-None", "-[1]", "-x.y", "-2 ** 2"])
def test_a_unary_operator_on_anything_but_a_number_literal_fails(text: str) -> None:
    assert fails(f"f(a={text})")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1 + 2", 3),
        ("2 ** 0.5", 2**0.5),
        ("0.1 + 0.2", 0.1 + 0.2),
        ("[1] * 3", [1, 1, 1]),
        ("'%d-%s' % (5, 'x')", "5-x"),
        ("'%5.2f' % 3.14159", " 3.14"),
        ("{'a': 1} | {'b': 2}", {"a": 1, "b": 2}),
        ("[1, 2][0] + 1", 2),
        ("True + 1", 2),
    ],
)
def test_binary_operations_on_literals_are_computed(text: str, value: Any) -> None:
    assert argument(text) == value


@pytest.mark.parametrize(
    "text",
    ["x + 1", "len('ab') + 1", "1 / 0", "'a' - 'b'", "a.b * 2", "1 + ..."],
)
def test_binary_operations_on_anything_but_literals_fail(text: str) -> None:
    assert fails(f"f(a={text})")


@pytest.mark.parametrize(
    "text",
    [
        "math.pi",
        "{1, 2}",
        "[x for x in y]",
        "1 if c else 2",
        "1 < 2",
        "a and b",
        "f'{x}'",
        "lambda: 1",
        "(b := 1)",
        "{**x}",
        "{[1]: 2}",
    ],
)
def test_other_expressions_fail(text: str) -> None:
    assert fails(f"f(a={text})")


def test_every_list_element_must_be_a_call() -> None:
    assert fails("[f(a=1), 2]")


def test_compiler_warnings_about_model_text_are_not_printed() -> None:
    code = (
        "from bfcl_action.decode import DecodeError, decode_prompt\n"
        "assert decode_prompt(r\"f(a='\\d')\", 'python')[0].arguments == {'a': '\\\\d'}\n"
        "try:\n    decode_prompt('f(a=1if 1 else 2)', 'python')\n"
        "except DecodeError:\n    pass\n"
    )
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stderr) == (0, "")

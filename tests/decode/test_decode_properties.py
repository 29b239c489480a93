"""Property tests: rendered calls decode back to themselves; no input raises anything but
`DecodeError`."""

from __future__ import annotations

import json
import keyword
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bfcl_action.core.records import Call, Language
from bfcl_action.decode import DecodeError, decode_fc, decode_prompt
from bfcl_action.decode.prompt_text import bracket_text

identifiers = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True).filter(
    lambda name: not keyword.iskeyword(name)
)
dotted_names = st.lists(identifiers, min_size=1, max_size=3).map(".".join)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
calls = st.builds(
    lambda name, arguments: Call(name=name, arguments=arguments),
    dotted_names,
    st.dictionaries(identifiers, values, max_size=4),
)


def python_source(call: Call, spacing: str) -> str:
    arguments = f",{spacing}".join(f"{key}={value!r}" for key, value in call.arguments.items())
    return f"{call.name}({arguments})"


def same(left: Any, right: Any) -> bool:
    """Equality that also tells -0.0 from 0.0 and bools from ints."""
    if type(left) is not type(right):
        return False
    if isinstance(left, float):
        return left == right and math.copysign(1, left) == math.copysign(1, right)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(same, left, right))
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
    return bool(left == right)


def same_calls(left: list[Call], right: list[Call]) -> bool:
    return [c.name for c in left] == [c.name for c in right] and all(
        same(a.arguments, b.arguments) for a, b in zip(left, right, strict=True)
    )


@given(
    st.lists(calls, max_size=4),
    st.sampled_from(["", " ", "\n"]),
    st.sampled_from(["{}", "[{}]", "```\n{}\n```", "  {}\n", "`{}`"]),
)
def test_python_call_text_decodes_back_to_the_calls(
    expected: list[Call], spacing: str, frame: str
) -> None:
    text = frame.format(", ".join(python_source(call, spacing) for call in expected))
    assert same_calls(decode_prompt(text, Language.PYTHON), expected)


@given(st.lists(calls, max_size=4))
def test_fc_json_decodes_back_to_the_calls(expected: list[Call]) -> None:
    output = [{call.name: json.dumps(call.arguments)} for call in expected]
    assert same_calls(decode_fc(output), expected)


@given(st.lists(calls, max_size=4))
def test_decoding_is_idempotent_through_rendering(expected: list[Call]) -> None:
    once = decode_prompt(", ".join(python_source(call, " ") for call in expected), "python")
    twice = decode_prompt(", ".join(python_source(call, " ") for call in once), "python")
    assert same_calls(once, twice)


@given(st.text())
def test_bracketing_is_idempotent(text: str) -> None:
    assert bracket_text(bracket_text(text)) == bracket_text(text)


python_alphabet = st.sampled_from([*"f(a=1, [{'\"x}]).-+*%:\\\n `", "\x00", "\ud800", "é"])


@settings(max_examples=150)
@given(
    st.text(python_alphabet, max_size=60) | st.text(max_size=60),
    st.sampled_from(list(Language)),
)
def test_any_text_gives_calls_or_a_decode_error(text: str, language: Language) -> None:
    try:
        result = decode_prompt(text, language)
    except DecodeError:
        return
    assert all(isinstance(call, Call) for call in result)


json_like = st.recursive(
    scalars | st.binary(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=5) | st.integers(), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=150)
@given(json_like)
def test_any_fc_structure_gives_calls_or_a_decode_error(output: Any) -> None:
    try:
        result = decode_fc(output)
    except DecodeError:
        return
    assert all(isinstance(call, Call) for call in result)


RESERVED = set(
    [
        "abstract",
        "assert",
        "boolean",
        "break",
        "byte",
        "case",
        "catch",
        "char",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "double",
        "else",
        "enum",
        "export",
        "extends",
        "false",
        "final",
        "finally",
        "float",
        "for",
        "function",
        "goto",
        "if",
        "implements",
        "import",
        "in",
        "instanceof",
        "int",
        "interface",
        "let",
        "long",
        "native",
        "new",
        "null",
        "package",
        "private",
        "protected",
        "public",
        "return",
        "short",
        "static",
        "strictfp",
        "super",
        "switch",
        "synchronized",
        "this",
        "throw",
        "throws",
        "transient",
        "true",
        "try",
        "typeof",
        "undefined",
        "var",
        "void",
        "volatile",
        "while",
        "with",
        "yield",
        "await",
        "async",
        "java",
        "javascript",
    ]
)
code_names = identifiers.filter(lambda name: name not in RESERVED)
plain_text = st.text(st.characters(codec="ascii", exclude_characters='"\\\n\r'), max_size=12)
code_values = st.one_of(
    st.integers(min_value=0, max_value=10**9).map(str),
    st.booleans().map(lambda flag: "true" if flag else "false"),
    plain_text.map(lambda text: f'"{text}"'),
    code_names,
)


def unquoted(value: str) -> str:
    return value[1:-1] if value.startswith('"') else value


@given(
    st.lists(code_names, min_size=1, max_size=3).map(".".join),
    st.dictionaries(code_names, code_values, max_size=4),
    st.sampled_from(["java", "javascript"]),
)
def test_java_and_javascript_call_text_decodes_to_its_argument_text(
    name: str, arguments: dict[str, str], language: str
) -> None:
    text = f"{name}({', '.join(f'{key}={value}' for key, value in arguments.items())});"
    expected = Call(name=name, arguments={key: unquoted(value) for key, value in arguments.items()})
    assert decode_prompt(text, language) == [expected]

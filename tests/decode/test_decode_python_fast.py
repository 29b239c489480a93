"""The regex fast path for Python call lists answers exactly as the `ast` path or not at all.

`decode_python_fast` must never accept text the `ast` path rejects, and on text it accepts
must give the same names and arguments with the same Python types (tuples stay tuples,
`-0.0` stays `-0.0`, `True` is not `1`). Anything it is unsure of is `None` (fall back).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from bfcl_action.decode import DECODER_FAILED, DecodeError, decode_prompt
from bfcl_action.decode.prompt_text import bracket_text
from bfcl_action.decode.python_calls import decode_python_ast
from bfcl_action.decode.python_fast import decode_python_fast, not_a_call_list
from tests.support.decode import same


def reference(text: str) -> list[tuple[str, dict[str, Any]]] | None:
    """What the `ast` path gives, or None when it fails."""
    try:
        return [(call.name, call.arguments) for call in decode_python_ast(text)]
    except DecodeError:
        return None


def fast(text: str) -> list[tuple[str, dict[str, Any]]] | None:
    return decode_python_fast(bracket_text(text))


def assert_agrees(text: str) -> bool:
    """The fast path answers None or exactly the `ast` result; True when it answered."""
    try:
        answer = fast(text)
    except DecodeError:  # bracket_text's own limits, shared by both paths
        return False
    if answer is None:
        return False
    expected = reference(text)
    assert expected is not None, f"fast path accepted text the ast path rejects: {text!r}"
    assert same(answer, expected), f"{text!r}: fast {answer!r} != ast {expected!r}"
    return True


# -- generated texts: accepted shapes and near-misses ---------------------------------------


def mostly(good: list[str], bad: list[str]) -> st.SearchStrategy[str]:
    """One of `good`, and one of `bad` about one time in twelve: texts are built from many
    such choices, so a fair share of them comes out entirely good."""
    weighted = good * max(1, 11 * len(bad) // len(good))
    return st.sampled_from(weighted + bad)


NAMES = mostly(
    ["f", "get_weather", "a1", "_x", "X_Y", "match", "case", "type", "_", "print", "Ellipsis"],
    ["if", "lambda", "not", "True", "None", "False", "__debug__", "async", "é", "ﬁle", "1a", ""],
)
DOTTED = st.lists(NAMES, min_size=1, max_size=3).map(".".join) | mostly(
    ["f", "mod.g"], ["a . b", "a .b", "x[0].f", "make()", "f()"]
)
WS = mostly(["", "", " ", "  ", "\n", "\t", " \n "], ["\r", "\x0c", "\\\n", "\xa0"])
STRING_CHARS = mostly(
    [*"ab Z09,=()[]{}:#.-+*", "é", "ß", "阿", "\u2028", "\x85", "\ufeff", "\U0001f600"],
    ["'", '"', "\\", "\n", "\r", "\t", "\x00", "\x7f", "\x1b", "\ud800", "\\n", "\\x41"],
)
STRINGS = st.builds(
    lambda prefix, quote, body, concat: prefix + quote + body + quote + concat,
    mostly([""], ["b", "r", "f", "u", "rb"]),
    mostly(["'", '"'], ["'''", '"""']),
    st.lists(STRING_CHARS, max_size=6).map("".join),
    mostly([""], [" 'x'", "'y'", '"z"']),
)
NUMBERS = (
    mostly(
        [
            *("0", "1.5", "0.0", "-0.0", "-0", "-1.25", "1e5", "1E-3", "1e+2", "1e999"),
            *("-1e999", "0e0", "-0e0", "1.5e3", "123456789012345678", "3.14159265358979323"),
            "0." + "1" * 40,
        ],
        [
            *("00", "01", "1.", ".5", "- 1", "+1", "--1", "1e", "1.e3", "1_000", "0x1F", "0o7"),
            *("0b1", "1j", "2.5J", "1234567890123456789", "1 + 2", "1if", "a b"),
            "0." + "1" * 41,
        ],
    )
    | st.integers(min_value=-(10**20), max_value=10**20).map(str)
    | st.floats(allow_nan=False, allow_infinity=False).map(repr)
)
ATOMS = (
    STRINGS
    | NUMBERS
    | NAMES
    | mostly(
        ["True", "False", "None", "true", "null", "...", "Ellipsis"],
        ["....", "g()", "g(x=1)", "x[0]", "math.pi", "-x", "not True", "{1, 2}", "()"],
    )
)


def _joined(items: list[str], separators: list[str], ws: str, trailing: str) -> str:
    """Items with separators, spaces inside the brackets, a trailing comma if there are items."""
    out = ""
    for i, item in enumerate(items):
        out += item + (separators[i % len(separators)] if i < len(items) - 1 else "")
    return ws + out + (trailing if items else "") + ws


SEPARATORS = st.lists(mostly([",", ", ", " ,", ",\n", "\t, "], [",,", " ", ""]), min_size=1)
TRAILING = mostly(["", "", ",", " , "], [",,", ", ,"])


def containers(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    brackets = st.sampled_from([("[", "]"), ("[", "]"), ("[", "]"), ("(", ")"), ("[", ")")])
    listed = st.builds(
        lambda b, xs, seps, ws, trailing: b[0] + _joined(xs, seps, ws, trailing) + b[1],
        brackets,
        st.lists(inner, max_size=4),
        SEPARATORS,
        WS,
        TRAILING,
    )
    mapped = st.builds(
        lambda ps, seps, ws, trailing: (
            "{" + _joined([f"{k}{w}:{w}{v}" for k, w, v in ps], seps, ws, trailing) + "}"
        ),
        st.lists(st.tuples(STRINGS | STRINGS | STRINGS | NUMBERS | NAMES, WS, inner), max_size=3),
        SEPARATORS,
        WS,
        TRAILING,
    )
    return listed | mapped


VALUES = st.recursive(ATOMS, containers, max_leaves=8)
ARGUMENTS = (
    st.builds(lambda name, w1, w2, value: f"{name}{w1}={w2}{value}", NAMES, WS, WS, VALUES)
    | VALUES  # positional
    | st.sampled_from(["*[1]", "**{'a': 1}", "a==1", "=1", "a="])
)
CALLS = st.builds(
    lambda name, ws, args, seps, trailing, close: (
        f"{name}{ws}(" + _joined(args, seps, ws, trailing) + close
    ),
    DOTTED,
    WS,
    st.lists(ARGUMENTS, max_size=4),
    SEPARATORS,
    TRAILING,
    mostly([")"], [")(b=1)", "", "))"]),
)
TEXTS = st.builds(
    lambda prefix, open_, calls, seps, trailing, close, suffix: (
        prefix + open_ + _joined(calls, seps, "", trailing) + close + suffix
    ),
    mostly(["", "```\n", "\n \n", "`"], ["```python\n", "Sure: "]),
    mostly(["[", ""], ["[[", " [\t"]),
    st.lists(CALLS, max_size=3),
    SEPARATORS,
    TRAILING,
    mostly(["]", ""], ["]]", "] x"]),
    mostly(["", "\n```", " \n"], [" Done.", "\t"]),
)


@settings(max_examples=1500, deadline=None)
@given(TEXTS)
def test_fast_path_answers_none_or_exactly_the_ast_result(text: str) -> None:
    event("fast path answered" if assert_agrees(text) else "fell back")


@settings(max_examples=800, deadline=None)
@given(CALLS.filter(bool), st.lists(st.sampled_from(["", " ", "\n", ", "]), max_size=2))
def test_fast_path_agrees_on_single_calls_with_and_without_brackets(
    call: str, extra: list[str]
) -> None:
    event("fast path answered" if assert_agrees(call + "".join(extra)) else "fell back")
    assert_agrees(f"[{call}]")


# -- shapes the fast path handles -------------------------------------------------------------

COMMON = [
    "[get_weather(city='Paris', days=3)]",
    "[]",
    "",
    "[f()]",
    "[f(),]",
    "[f(a=1,)]",
    "f(a=1)",
    "```\n[f(a=1)]\n```",
    '[a.b.c(x="y", n=-2, r=0.5, t=True, u=False, v=None)]',
    "[f(a=1), g(b='x'),\n h(c=[1, 2.5, 'z'])]",
    "[f(\n    a=1,\n    b='two'\n)]",
    "[f(a={'k': 'v', 'n': [1, {'m': None}]}, b=[], c={})]",
    "[f(a=-0.0, b=-0, c=1e5, d=1E-3, e=1e999, f=-1e999, g=0.1000000000000000055511151)]",
    "[f(a=true, b=null, c=..., d=Ellipsis, e=match)]",
    "[f('positional', 2, x, [1], a=1)]",
    "[f(a=1, a=2)]",
    "[f(a='é阿\U0001f600', b=\"it's\", c='say \"hi\"')]",
    "[f(a=1)\t,\tg(b=2)]",
    "[f (a = 1)]",
    "[f(a=123456789012345678)]",
    "[f(True, None, a=[True, {'k': None}], b=False)]",
]


@pytest.mark.parametrize("text", COMMON)
def test_fast_path_handles_common_shapes(text: str) -> None:
    assert assert_agrees(text), f"fast path fell back on {text!r}"


def test_decode_python_gives_the_fast_result_as_calls() -> None:
    calls = decode_prompt("[f(a=1, b=[1, 2]), g.h(c='x')]", "python")
    assert [(c.name, c.arguments) for c in calls] == [
        ("f", {"a": 1, "b": [1, 2]}),
        ("g.h", {"c": "x"}),
    ]


def test_repeated_keyword_keeps_the_last_value_in_the_first_position() -> None:
    assert fast("[f(a=1, b=2, a=3)]") == [("f", {"a": 3, "b": 2})]
    assert list(fast("[f(a=1, b=2, a=3)]")[0][1]) == ["a", "b"]  # type: ignore[index]


def test_repeated_dict_key_keeps_the_last_value() -> None:
    assert fast("[f(d={'k': [1], 'j': 0, 'k': {'x': 2}})]") == [
        ("f", {"d": {"k": {"x": 2}, "j": 0}})
    ]


def test_number_types_are_kept() -> None:
    ((_, arguments),) = fast("[f(i=-0, z=-0.0, e=1e2, b=True, n=10)]")  # type: ignore[misc]
    assert same(arguments, {"i": 0, "z": -0.0, "e": 100.0, "b": True, "n": 10})


# -- fallbacks, one reason each --------------------------------------------------------------

FALLBACKS = {
    "keyword as call name": "[if(a=1)]",
    "keyword as name part": "[a.lambda(a=1)]",
    "constant as name root": "[True.f(a=1)]",
    "keyword as argument name": "[f(class=1)]",
    "__debug__ as argument name": "[f(__debug__=1)]",
    "__debug__ as value": "[f(a=__debug__)]",
    "keyword as value": "[f(a=not)]",
    "keyword in a list value": "[f(a=[1, 'x', if])]",
    "keyword as a dict value": "[f(a={'k': lambda})]",
    "keyword as positional value": "[f(pass, a=1)]",
    "keyword in a later call": "[f(a=1), g(b=yield)]",
    "non-ASCII name (NFKC-normalised by Python)": "[ﬁle(a=1)]",
    "spaces around a dot": "[a . b(c=1)]",
    "leading zeros": "[f(a=01)]",
    "zero-padded zero": "[f(a=00)]",
    "trailing dot": "[f(a=1.)]",
    "leading dot": "[f(a=.5)]",
    "underscore in a number": "[f(a=1_000)]",
    "hex number": "[f(a=0x1F)]",
    "complex number": "[f(a=1j)]",
    "over 18 integer digits": "[f(a=1234567890123456789)]",
    "space after minus": "[f(a=- 1)]",
    "unary plus": "[f(a=+1)]",
    "double minus": "[f(a=--1)]",
    "binary operator": "[f(a=1 + 2)]",
    "backslash escape": "[f(a='a\\nb')]",
    "bytes": "[f(a=b'x')]",
    "raw string": "[f(a=r'x')]",
    "f-string": "[f(a=f'x')]",
    "triple quotes": "[f(a='''x''')]",
    "implicit concatenation": "[f(a='x' 'y')]",
    "control character in a string": "[f(a='a\x1bb')]",
    "tuple": "[f(a=(1, 2))]",
    "set": "[f(a={1, 2})]",
    "non-string dict key": "[f(a={1: 2})]",
    "nested call value": "[f(a=g(x=1))]",
    "attribute value": "[f(a=math.pi)]",
    "subscript value": "[f(a=x[0])]",
    "nesting over the limit": "[f(a=[[[[1]]]])]",
    "**kwargs": "[f(**{'a': 1})]",
    "*args": "[f(*[1], a=2)]",
    "carriage return": "[f(a=1)\r]",
    "form feed": "[f(a=1)\x0c]",
    "missing comma between calls": "[f(a=1) g(b=2)]",
    "missing comma between arguments": "[f(a=1 b=2)]",
    "prose around the list": "Sure: [f(a=1)]",
    "fence with a language word": "```python\n[f(a=1)]\n```",
    "nested list of calls": "[[f(a=1)]]",
    "call on a call": "[f(a=1)(b=2)]",
}


@pytest.mark.parametrize("text", FALLBACKS.values(), ids=FALLBACKS.keys())
def test_fast_path_falls_back(text: str) -> None:
    assert fast(text) is None


POSITIONAL_AFTER_KEYWORD = [
    "[f(a=1, 'x')]",
    "[f(a=1, x)]",
    "[f(a=1, [2])]",
    "[g(), f(b=2, c=3, -1)]",
    "[f(a=1), g(b=2, {'k': 1})]",
]


@pytest.mark.parametrize("text", POSITIONAL_AFTER_KEYWORD)
def test_positional_after_keyword_is_left_to_ast_which_rejects_it(text: str) -> None:
    assert fast(text) is None
    assert reference(text) is None


# -- hostile input ---------------------------------------------------------------------------

HOSTILE = {
    "a megabyte of calls missing the last bracket": "[" + "f(a='x, y')," * 90_000 + "f(a=1",
    "an unterminated megabyte string": "[f(a='" + "x" * 1_000_000 + "]",
    "a megabyte of positionals before a bad keyword": "[f(" + "x, " * 330_000 + "a=)]",
    "a megabyte of list items never closed": "[f(a=[" + "'1', " * 200_000 + ")]",
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_near_matching_text_falls_back(text: str) -> None:
    assert decode_python_fast(text) is None


def test_a_megabyte_of_simple_calls_is_decoded() -> None:
    text = "[" + ", ".join(["f(a='x, y', b=[1, {'k': -2.5}])"] * 30_000) + "]"
    answer = decode_python_fast(text)
    assert answer is not None
    assert len(answer) == 30_000
    assert answer[-1] == ("f", {"a": "x, y", "b": [1, {"k": -2.5}]})


# Text that surely fails: prose and lists of plain values are refused without `ast`.

PROSE_WORDS = st.sampled_from(
    ["I", "I'm", "You", "Sure!", "Note:", "call", "if", "not", "f", "rb", "x", "match", "**Note"]
)
PROSE = st.builds(
    lambda words, seps, tail: "".join(w + s for w, s in zip(words, seps, strict=False)) + tail,
    st.lists(PROSE_WORDS, min_size=1, max_size=4),
    st.lists(st.sampled_from([" ", "", "\n", "'", "!", "!=", " 'a'", "(", ", "]), min_size=4),
    st.sampled_from(["", ".", " f(a=1)", " [f()]", "'"]),
)


def assert_refusal_agrees(text: str) -> bool:
    """`not_a_call_list` answers None, or the `ast` path fails too (with the same message
    for a list of values); True when it refused."""
    try:
        source = bracket_text(text)
    except DecodeError:
        return False
    why = not_a_call_list(source)
    if why is None:
        return False
    with pytest.raises(DecodeError) as caught:
        decode_python_ast(text)
    assert caught.value.error_type == DECODER_FAILED
    if why.startswith("list element"):
        assert caught.value.message == why
    return True


@settings(max_examples=1500, deadline=None)
@given(PROSE | TEXTS | VALUES)
def test_text_refused_without_ast_is_refused_by_ast_too(text: str) -> None:
    event("refused" if assert_refusal_agrees(text) else "left to ast")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("I'm sorry, I can't help with that.", "SyntaxError"),
        ("You could call the API (with care).", "SyntaxError"),
        ("**Note:** nothing applies", "SyntaxError"),
        ("Sure! Here you go: [f(a=1)]", "SyntaxError"),
        ("42", "list element is a Constant"),
        ("None", "list element is a Constant"),
        ("-5", "list element is a UnaryOp"),
        ("get_weather", "list element is a Name"),
        ("[{}]", "list element is a Dict"),
        ("[[1, 2]]", "list element is a List"),
    ],
)
def test_prose_and_plain_values_are_refused_without_ast(text: str, why: str) -> None:
    assert why in (not_a_call_list(bracket_text(text)) or "")
    assert assert_refusal_agrees(text)


@pytest.mark.parametrize(
    "text", ["[]", "f'x'", "rb'x'", "[x if y else z]", "not x", "x != y", "[x for x in y]"]
)
def test_text_that_may_parse_is_left_to_ast(text: str) -> None:
    assert not_a_call_list(bracket_text(text)) is None

"""Hostile inputs: huge, deep or odd outputs get a verdict quickly and never another error.

The time bound is a coarse hang detector (seconds, on a busy machine), not a benchmark.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

import pytest

from bfcl_action.core.records import Call, Language
from bfcl_action.decode import DECODER_FAILED, DecodeError, decode_fc, decode_prompt

TEN_MB = 10 * 1024 * 1024
HANG = 10.0


@contextmanager
def within_seconds(limit: float = HANG) -> Iterator[None]:
    start = time.monotonic()
    yield
    assert time.monotonic() - start < limit


def verdict(decode: Callable[[], list[Call]]) -> str:
    with within_seconds():
        try:
            decode()
        except DecodeError as error:
            return error.error_type
    return "calls"


ALL_LANGUAGES = pytest.mark.parametrize("language", list(Language))


@ALL_LANGUAGES
def test_ten_megabytes_of_text_is_refused(language: Language) -> None:
    text = "f(a='" + "x" * TEN_MB + "')"
    assert verdict(lambda: decode_prompt(text, language)) == DECODER_FAILED


@ALL_LANGUAGES
@pytest.mark.parametrize("opener", ["[", "(", "{", "f(a="])
def test_hundred_thousand_deep_nesting_is_refused(language: Language, opener: str) -> None:
    closer = {"[": "]", "(": ")", "{": "}", "f(a=": ")"}[opener]
    text = opener * 100_000 + "1" + closer * 100_000
    assert verdict(lambda: decode_prompt(text, language)) == DECODER_FAILED


@pytest.mark.parametrize(
    "text",
    [
        "f(a=" + "-" * 500_000 + "1)",
        "f(a=" + "not " * 200_000 + "1)",
        "f(a=" + "+".join(["1"] * 40_000) + ")",
        "f(a=" + "x." * 300_000 + "y)",
        "f(a=" + "1 if 1 else " * 80_000 + "1)",
        "f(a=" + "lambda:" * 100_000 + "1)",
        "f(a=" + "[" * 150 + "]" * 150 + ")",
    ],
    ids=["unary", "not", "plus", "attributes", "conditional", "lambda", "deep-list"],
)
def test_long_python_operator_chains_are_refused(text: str) -> None:
    assert verdict(lambda: decode_prompt(text, "python")) == DECODER_FAILED


@pytest.mark.parametrize(
    "value",
    ["2 ** 10 ** 10", "1 << 10 ** 9", "'x' * 10 ** 9", "[[0] * 1000] * 1000", "'%0999999999d' % 1"],
)
def test_python_operators_that_would_build_huge_values_are_refused(value: str) -> None:
    assert verdict(lambda: decode_prompt(f"f(a={value})", "python")) == DECODER_FAILED


@ALL_LANGUAGES
@pytest.mark.parametrize(
    "odd", ["\x00", "\ud800", "\udfff\ud800", "\ufeff", "\u202e", "\U0010ffff"]
)
def test_odd_code_points_give_a_verdict(language: Language, odd: str) -> None:
    for text in (f"f(a='{odd}')", f"f{odd}(a=1)", f"{odd}f(a=1)"):
        assert verdict(lambda text=text: decode_prompt(text, language)) in {
            "calls",
            DECODER_FAILED,
        }


def test_ten_megabytes_of_fc_arguments_are_refused() -> None:
    arguments = json.dumps({"a": "x" * TEN_MB})
    assert verdict(lambda: decode_fc([{"f": arguments}])) == DECODER_FAILED


def test_hundred_thousand_deep_fc_json_is_refused() -> None:
    arguments = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert verdict(lambda: decode_fc([{"f": arguments}])) == DECODER_FAILED


def test_many_fc_calls_decode_in_linear_time() -> None:
    output = [{"f": '{"a": 1}'}] * 100_000
    assert verdict(lambda: decode_fc(output)) == "calls"


RICH_CALLS = [
    'a.b(x=new HashMap<String, List<Integer>>() {{ put("k", 1); }}, y=new int[][]{{1}}, '
    "z=(int) 2.5, w=v -> v + 1, u=Foo.class, t=x ? 'c' : \"s\", s=A::b, r=-1L);",
    "obj?.fn(a=[1, , {k: `t ${x} u`}], b=async (p) => { await p; }, c=/re[/]x/g, "
    "d=new Date(), e=function named() {}, f=a ?? b, g=1n, h=x => ({...x}));",
    "[mod.f(a=[1, -2.5, {'k': (1, None)}], b=g(1, c=True), c=x[1:2], d=2 ** 0.5, e=...)]",
]


@ALL_LANGUAGES
@pytest.mark.parametrize("text", RICH_CALLS, ids=["java", "javascript", "python"])
def test_every_prefix_of_a_call_gives_a_verdict(language: Language, text: str) -> None:
    with within_seconds():
        for end in range(len(text) + 1):
            with suppress(DecodeError):
                decode_prompt(text[:end], language)

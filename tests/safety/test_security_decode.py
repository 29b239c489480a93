"""Issue 16, vulnerability 3: model output cannot stall the checker. Every hostile output is
answered (decoded or refused) within 10 s of CPU and 800 MB, and the linear rewrites of the
Java collection patterns give exactly what the patterns give."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bfcl_action.checker import java_types
from tests.support.bounded import python_bounded

DECODE = """
from bfcl_action.decode import DecodeError, decode_output
from bfcl_action.core.records import Language, Mode
try:
    print(decode_output({text}, mode=Mode.PROMPT, language=Language.{language}))
except DecodeError as exc:
    print("refused:", exc.message[:200])
"""

HOSTILE_PYTHON = {
    "fast path, trailing spaces": '"[math.add(a=1, b=2)" + " " * 300000 + "]"',
    "fast path, 1M chars": '"[math.add(a=1, b=2)" + " " * 999000 + "]"',
    "percent-format bomb": "\"[f(a=('%9999d'*160000) % ((1,)*160000))]\"",
    "many big shifts": '"[f(a=[" + ",".join(["1<<999990"] * 19000) + "])]"',
    "many big powers": '"[f(a=[" + ",".join(["3**500000"] * 200) + "])]"',
}


@pytest.mark.parametrize("text", HOSTILE_PYTHON.values(), ids=HOSTILE_PYTHON.keys())
def test_hostile_python_outputs_are_answered_within_the_bound(text: str) -> None:
    out = python_bounded(DECODE.format(text=text, language="PYTHON"))
    assert out.startswith(("refused:", "[Call(")), out[:300]


def test_the_fast_path_still_decodes_text_with_trailing_spaces() -> None:
    out = python_bounded(DECODE.format(text=HOSTILE_PYTHON["fast path, trailing spaces"],
                                       language="PYTHON"))  # fmt: skip
    assert "arguments={'a': 1, 'b': 2}" in out


CONVERT = """
from bfcl_action.checker.java_types import convert_java
print(repr(convert_java({text}, {type!r}))[:80])
"""


@pytest.mark.parametrize(
    ("text", "type_name"),
    [
        ('"new HashMap<>(){" + " " * 300 + "x"', "HashMap"),
        ('"new HashMap<>(){" + " " * 9000 + "x"', "HashMap"),
        ('"new ArrayList<>() {{" + " " * 9000 + "x"', "ArrayList"),
        ('"new HashMap<" * 800 + ">() {" + " " * 100', "HashMap"),
    ],
)
def test_hostile_java_collections_are_converted_within_the_bound(text: str, type_name: str) -> None:
    python_bounded(CONVERT.format(text=text, type=type_name))


_MAP = re.compile(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", re.DOTALL)
_LIST = re.compile(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", re.DOTALL)
MAP_PIECES = ["new HashMap<", "String, Integer", ">", "()", "(", ")", "{", "}", " ", "\n",
              'put("a", 1)', ",", "x"]  # fmt: skip
LIST_PIECES = ["new ArrayList<", "String", ">", "()", "{{", "}}", "{", "}", " ", "\n",
               'add("a")', "x"]  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(MAP_PIECES), max_size=14))
def test_the_linear_hash_map_reader_equals_the_pattern(pieces: list[str]) -> None:
    text = "new HashMap<" + "".join(pieces)
    match = _MAP.search(text)
    assert java_types._map_body(text) == (match.group(1) if match else None)


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(LIST_PIECES), max_size=14))
def test_the_linear_double_brace_reader_equals_the_pattern(pieces: list[str]) -> None:
    text = "new ArrayList<>() {{" + "".join(pieces)
    match = _LIST.search(text)
    assert java_types._double_brace_body(text) == (match.group(1) if match else None)

"""Position-aware parsing: same values as the standard parsers, plus 1-based positions."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bfcl_action.tools import ParseError
from bfcl_action.tools.source import parse_json, parse_jsonl, parse_text, parse_yaml

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=60, deadline=None)
@given(json_values, st.sampled_from([None, 2]))
def test_json_values_equal_the_standard_parser(value, indent) -> None:
    text = json.dumps(value, indent=indent)
    assert parse_json(text, "x.json").data == json.loads(text)


def test_json_positions_are_one_based_line_and_column() -> None:
    doc = parse_json('{\n  "a": [1,\n        {"b": true}]\n}', "x.json")
    assert doc.where(("a",)) == (2, 8)
    assert doc.where(("a", 1, "b")) == (3, 15)
    assert doc.where(("a", 1, "b"), key=True) == (3, 10)


def test_missing_path_falls_back_to_the_nearest_ancestor() -> None:
    doc = parse_json('{"a": {"b": 1}}', "x.json")
    assert doc.where(("a", "zzz", "q")) == (1, 7)


def test_jsonl_lines_keep_their_line_numbers() -> None:
    doc = parse_jsonl('{"a": 1}\n\n{"a": 2}\n', "x.jsonl")
    assert doc.data == [{"a": 1}, {"a": 2}]
    assert doc.where((1, "a")) == (3, 7)


def test_yaml_scalars_become_plain_python_types() -> None:
    doc = parse_yaml("a: 1.5\nb: true\nc: 2026-01-02\nd: yes\n", "x.yaml")
    assert doc.data == {"a": 1.5, "b": True, "c": "2026-01-02", "d": "yes"}
    assert type(doc.data["b"]) is bool and type(doc.data["a"]) is float


def test_yaml_positions_point_at_values() -> None:
    doc = parse_yaml("top:\n  list:\n    - x\n    - {k: v}\n", "x.yaml")
    assert doc.where(("top", "list", 0)) == (3, 7)
    assert doc.where(("top", "list", 1, "k")) == (4, 11)


def test_json_file_holding_json_lines_is_read_as_lines() -> None:
    doc = parse_text('{"a": 1}\n{"a": 2}\n', "docs.json")
    assert doc.data == [{"a": 1}, {"a": 2}]


def test_truncated_json_reports_end_of_file() -> None:
    with pytest.raises(ParseError) as info:
        parse_json('{"a": [1, 2', "x.json")
    assert str(info.value) == "x.json:1:12: invalid JSON: expected ',' or ']', found end of file"

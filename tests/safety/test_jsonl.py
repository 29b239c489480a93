"""The one JSON Lines reader: numbering, blank lines, BOM, and bad lines named."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bfcl_action.core.errors import DatasetError, InputError
from bfcl_action.safety.jsonl import read_jsonl, scan_jsonl


def test_lines_are_numbered_from_one_and_blank_lines_are_skipped() -> None:
    text = '\ufeff{"a": 1}\n\n  \n{"a": 2}\n'
    assert read_jsonl(text, file="f.jsonl") == [(1, {"a": 1}), (4, {"a": 2})]


def test_bytes_and_text_read_alike() -> None:
    text = '{"a": "\u00e9"}\r\n{"b": [1, 2]}\n'
    assert read_jsonl(text.encode(), file="f") == read_jsonl(text, file="f")


def test_line_separators_inside_strings_do_not_split_a_line() -> None:
    text = '{"q": "a\u2028b\x85c"}\n{"q": 2}\n'
    assert read_jsonl(text, file="f") == [(1, {"q": "a\u2028b\x85c"}), (2, {"q": 2})]
    assert read_jsonl(text.encode(), file="f") == read_jsonl(text, file="f")


def test_a_bad_line_names_file_line_and_column() -> None:
    with pytest.raises(InputError) as err:
        read_jsonl('{"a": 1}\n{"a": }\n', file="data.jsonl")
    assert (err.value.file, err.value.line, err.value.column) == ("data.jsonl", 2, 7)
    assert err.value.message.startswith("not valid JSON")


def test_a_non_object_line_is_an_error_unless_any_value_is_allowed() -> None:
    with pytest.raises(DatasetError, match="expected a JSON object, found list"):
        read_jsonl("[1]\n", file="f", error=DatasetError)
    assert read_jsonl("[1]\n3\n", file="f", objects=False) == [(1, [1]), (2, 3)]


def test_scanning_reports_every_bad_line_and_keeps_the_rest() -> None:
    lines = list(scan_jsonl('{"a": 1}\n{oops\n{"a": 3}\n'))
    assert [(e.line, e.value) for e in lines if e.error is None] == [(1, {"a": 1}), (3, {"a": 3})]
    assert [e.line for e in lines if e.error is not None] == [2]


json_objects = st.dictionaries(
    st.text(max_size=5),
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5)),
    max_size=4,
)


@settings(deadline=None)  # timing is not the property; a loaded CI machine is slow
@given(st.lists(json_objects, max_size=6))
def test_any_list_of_objects_round_trips(rows: list[dict[str, object]]) -> None:
    import json

    text = "".join(json.dumps(r) + "\n" for r in rows)
    assert [v for _, v in read_jsonl(text, file="f")] == rows


def test_tool_files_in_json_lines_keep_a_string_with_a_line_separator_whole() -> None:
    from bfcl_action.tools.source import parse_jsonl

    doc = parse_jsonl('{"name": "a\u2028b"}\n{"name": "c"}\n', "tools.jsonl")
    assert doc.data == [{"name": "a\u2028b"}, {"name": "c"}]
    assert doc.where((1, "name")) == (2, 10)

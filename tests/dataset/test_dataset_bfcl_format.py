"""BFCL's entry / possible-answer file pair, read and written."""

from __future__ import annotations

from pathlib import Path

import pytest

from bfcl_action.core.errors import DatasetError
from bfcl_action.core.records import FunctionDoc, Message, TestCase
from bfcl_action.dataset.bfcl_format import read_category, write_category


def _case(index: int) -> TestCase:
    return TestCase(
        id=f"live_simple_{index}-0-0",
        category="live_simple",
        question=[[Message(role="user", content=f"Wetter in Zürich, Tag {index}?")]],
        functions=[FunctionDoc(name="weather.get", description="Forecast.")],
        possible_answer=[{"weather.get": {"city": ["Zürich"], "day": [index, ""]}}],
    )


def test_written_files_read_back_to_the_same_cases(tmp_path: Path) -> None:
    cases = [_case(0), _case(1)]
    digests = write_category(tmp_path, "live_simple", cases, with_answers=True)
    loaded = read_category(
        tmp_path, "live_simple", dataset="d", suite="s", display="", expected_sha256=digests
    )
    strip = {"source", "dataset", "suite"}
    assert [c.model_dump(exclude=strip) for c in loaded] == [
        c.model_dump(exclude=strip) for c in cases
    ]


def test_same_cases_give_byte_identical_files(tmp_path: Path) -> None:
    first = write_category(tmp_path / "a", "live_simple", [_case(0)], with_answers=True)
    second = write_category(tmp_path / "b", "live_simple", [_case(0)], with_answers=True)
    assert first == second


def test_entry_without_an_answer_is_refused(tmp_path: Path) -> None:
    write_category(tmp_path, "live_simple", [_case(0)], with_answers=True)
    entries = tmp_path / "BFCL_v4_live_simple.json"
    entries.write_text(entries.read_text().replace("live_simple_0-0-0", "live_simple_9-0-0"))
    with pytest.raises(
        DatasetError,
        match=r"BFCL_v4_live_simple\.json:1: entry 'live_simple_9-0-0' has no possible answer",
    ):
        read_category(tmp_path, "live_simple", dataset="d", suite="s", display="")


def test_entry_of_the_wrong_shape_names_the_field(tmp_path: Path) -> None:
    (tmp_path / "BFCL_v4_irrelevance.json").write_text(
        '{"id": "irrelevance_0", "question": "hi"}\n'
    )
    with pytest.raises(DatasetError, match=r":1: question: entry 'irrelevance_0' does not match"):
        read_category(tmp_path, "irrelevance", dataset="d", suite="s", display="")

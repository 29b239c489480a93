"""BFCL result files in, BFCL result and score files out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.core.errors import InputError
from bfcl_action.core.records import Call, CaseResult, FunctionDoc, Message, TestCase
from bfcl_action.results.results_io import (
    bfcl_directory,
    category_from_id,
    read_result_file,
    read_results,
    read_score_file,
    write_result_files,
    write_score_files,
)


def _write(path: Path, rows: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_reads_the_official_layout_under_a_model_folder(tmp_path: Path) -> None:
    model = tmp_path / "result" / "gpt-4o-FC"
    _write(
        model / "non_live" / "BFCL_v4_simple_python_result.json",
        [{"id": "simple_python_0", "result": "x"}],
    )
    _write(
        model / "live" / "BFCL_v4_live_simple_result.json",
        [{"id": "live_simple_0-0-0", "result": []}],
    )
    entries = read_results(tmp_path / "result")
    assert sorted((e.category, e.id) for e in entries) == [
        ("live_simple", "live_simple_0-0-0"),
        ("simple_python", "simple_python_0"),
    ]


def test_keeps_token_counts_latency_and_unknown_fields(tmp_path: Path) -> None:
    row = {"id": "multiple_3", "result": [], "input_token_count": 10, "latency": 1.5, "x": 1}
    (entry,) = read_results(_write(tmp_path / "BFCL_v4_multiple_result.json", [row]))
    assert (entry.input_token_count, entry.latency, entry.model_extra) == (10, 1.5, {"x": 1})


def test_one_file_with_another_name_takes_categories_from_ids(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "mixed.jsonl",
        [{"id": "simple_java_2", "result": ""}, {"id": "live_relevance_4-4-0", "result": ""}],
    )
    assert [e.category for e in read_results(path)] == ["simple_java", "live_relevance"]


def test_id_without_a_category_in_an_unnamed_file_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "mixed.jsonl", [{"id": "weird", "result": ""}])
    with pytest.raises(InputError, match=r"mixed\.jsonl:1: id: cannot tell the category"):
        read_results(path)


def test_bad_json_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "BFCL_v4_parallel_result.json"
    path.write_text('{"id": "parallel_0", "result": []}\n{"id": "parallel_1", "result": \n')
    with pytest.raises(InputError) as caught:
        read_result_file(path)
    assert caught.value.file == str(path)
    assert caught.value.line == 2
    assert "not valid JSON" in str(caught.value)


def test_missing_result_field_is_named(tmp_path: Path) -> None:
    path = _write(tmp_path / "BFCL_v4_parallel_result.json", [{"id": "parallel_0"}])
    with pytest.raises(InputError, match=r":1: result: missing field"):
        read_result_file(path)


def test_non_object_line_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "BFCL_v4_parallel_result.json", [["parallel_0"]])
    with pytest.raises(InputError, match="expected a JSON object, found list"):
        read_result_file(path)


def test_duplicate_ids_are_refused_with_both_lines(tmp_path: Path) -> None:
    row = {"id": "parallel_0", "result": []}
    path = _write(tmp_path / "BFCL_v4_parallel_result.json", [row, row])
    with pytest.raises(InputError, match=r":2: id: duplicate id 'parallel_0' \(first on line 1\)"):
        read_result_file(path)


def test_two_model_folders_are_ambiguous(tmp_path: Path) -> None:
    for model in ("a", "b"):
        _write(tmp_path / model / "non_live" / "BFCL_v4_multiple_result.json", [])
    with pytest.raises(InputError, match="two result files for category 'multiple'"):
        read_results(tmp_path)


def test_directory_without_result_files_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no BFCL_v4_<category>_result\.json files"):
        read_results(tmp_path)


def test_missing_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_results(tmp_path / "nope")


@pytest.mark.parametrize(
    ("entry_id", "category"),
    [
        ("simple_python_10", "simple_python"),
        ("live_parallel_multiple_3-2-0", "live_parallel_multiple"),
        ("nothing", None),
    ],
)
def test_category_from_id(entry_id: str, category: str | None) -> None:
    assert category_from_id(entry_id) == category


@pytest.mark.parametrize(
    ("category", "folder"),
    [
        ("irrelevance", "non_live"),
        ("live_irrelevance", "live"),
        ("multiple", "non_live"),
        ("live_relevance", "live"),
        ("own_simple", "own"),
    ],
)
def test_bfcl_directory_follows_the_official_grouping(category: str, folder: str) -> None:
    assert bfcl_directory(category) == folder


def _result(entry_id: str, category: str, *, valid: bool, **extra: Any) -> CaseResult:
    return CaseResult(id=entry_id, category=category, valid=valid, **extra)


def test_written_result_files_read_back_in_bfcl_order(tmp_path: Path) -> None:
    results = [
        _result(
            "simple_python_10",
            "simple_python",
            valid=True,
            model_output=[{"f": "{}"}],
            input_tokens=5,
        ),
        _result(
            "simple_python_9", "simple_python", valid=False, model_output="[f()]", latency_s=0.5
        ),
        _result(
            "live_simple_1-0-1",
            "live_simple",
            valid=True,
            model_output=[],
            suite="live@2026-W48/live_simple",
        ),
    ]
    paths = write_result_files(results, tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in paths) == [
        "live@2026-W48/live/BFCL_v4_live_simple_result.json",
        "non_live/BFCL_v4_simple_python_result.json",
    ]
    entries = read_result_file(tmp_path / "non_live" / "BFCL_v4_simple_python_result.json")
    assert [(e.id, e.result) for e in entries] == [
        ("simple_python_9", "[f()]"),
        ("simple_python_10", [{"f": "{}"}]),
    ]
    assert (entries[0].latency, entries[1].input_token_count) == (0.5, 5)


def _case(entry_id: str, category: str) -> TestCase:
    return TestCase(
        id=entry_id,
        category=category,
        question=[[Message(role="user", content="hi")]],
        functions=[FunctionDoc(name="f")],
        possible_answer=[{"f": {"a": [1]}}],
    )


def test_score_file_has_bfcl_header_then_one_line_per_failure(tmp_path: Path) -> None:
    results = [
        _result("multiple_0", "multiple", valid=True),
        _result(
            "multiple_1",
            "multiple",
            valid=False,
            error=["wrong"],
            error_type="value_error:others",
            model_output=[{"f": '{"a": 2}'}],
            decoded=[Call(name="f", arguments={"a": 2})],
        ),
        _result("multiple_2", "multiple", valid=False, infra_error="timeout"),
    ]
    cases = {c.id: c for c in [_case("multiple_0", "multiple"), _case("multiple_1", "multiple")]}
    (path,) = write_score_files(results, tmp_path, model_name="org/model-FC", cases=cases)
    assert path == tmp_path / "org_model-FC" / "non_live" / "BFCL_v4_multiple_score.json"
    header, failures = read_score_file(path)
    assert header == {"accuracy": 0.5, "correct_count": 1, "total_count": 2}
    (failure,) = failures
    assert failure["id"] == "multiple_1"
    assert failure["error_type"] == "value_error:others"
    assert failure["model_result_decoded"] == [{"f": {"a": 2}}]
    assert failure["possible_answer"] == [{"f": {"a": [1]}}]
    assert failure["prompt"]["function"][0]["name"] == "f"
    assert set(failure) >= {"model_name", "test_category", "valid", "error", "model_result_raw"}


def test_relevance_failures_use_bfcl_relevance_keys(tmp_path: Path) -> None:
    results = [
        _result(
            "irrelevance_0",
            "irrelevance",
            valid=False,
            error_type="irrelevance_error:decoder_success",
            model_output="[f(a=1)]",
            decoded=[Call(name="f", arguments={"a": 1})],
        ),
    ]
    (path,) = write_score_files(results, tmp_path, model_name="m")
    _, (failure,) = read_score_file(path)
    assert failure["decoded_result"] == [{"f": {"a": 1}}]
    assert failure["model_result"] == "[f(a=1)]"


def test_score_file_without_header_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "BFCL_v4_multiple_score.json", [{"id": "x"}])
    with pytest.raises(InputError, match="first line must hold 'accuracy'"):
        read_score_file(path)

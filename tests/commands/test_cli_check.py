"""`bfcl-action check`: one self-contained case per input line, one verdict per output line."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.cli import main

ADD = {
    "name": "math.add",
    "description": "Add two integers.",
    "parameters": {
        "type": "dict",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
}


def _line(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "t1",
        "category": "simple_python",
        "functions": [ADD],
        "possible_answer": [{"math.add": {"a": [1], "b": [2]}}],
        "model_output": [{"math.add": {"a": 1, "b": 2}}],
    }
    base.update(overrides)
    return base


def _check(tmp_path: Path, lines: list[Any]) -> list[dict[str, Any]]:
    source = tmp_path / "in.jsonl"
    source.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    out = tmp_path / "out.jsonl"
    assert main(["check", "--cases", str(source), "--output", str(out)]) == 0
    return [json.loads(x) for x in out.read_text().splitlines()]


def test_decoded_call_list_matching_the_answer_is_valid(tmp_path: Path) -> None:
    (verdict,) = _check(tmp_path, [_line()])
    assert verdict == {"id": "t1", "valid": True, "error_type": None, "error": []}


def test_wrong_value_is_invalid_with_a_bfcl_error_type(tmp_path: Path) -> None:
    (verdict,) = _check(tmp_path, [_line(model_output=[{"math.add": {"a": 5, "b": 2}}])])
    assert verdict["valid"] is False
    assert verdict["error_type"].startswith("value_error")
    assert verdict["error"]


def test_raw_text_is_decoded_as_prompt_output(tmp_path: Path) -> None:
    (verdict,) = _check(tmp_path, [_line(model_output="[math.add(a=1, b=2)]")])
    assert verdict["valid"] is True


def test_fc_output_with_json_string_arguments_is_accepted(tmp_path: Path) -> None:
    (verdict,) = _check(tmp_path, [_line(model_output=[{"math.add": '{"a": 1, "b": 2}'}])])
    assert verdict["valid"] is True


def test_underscore_to_dot_flag_is_honoured(tmp_path: Path) -> None:
    output = [{"math_add": {"a": 1, "b": 2}}]
    on, off = _check(
        tmp_path,
        [_line(model_output=output, underscore_to_dot=True), _line(model_output=output)],
    )
    assert (on["valid"], off["valid"]) == (True, False)


def test_irrelevance_case_needs_no_answer(tmp_path: Path) -> None:
    line = _line(category="irrelevance", possible_answer=[], model_output="No tool fits.")
    (verdict,) = _check(tmp_path, [line])
    assert verdict["valid"] is True


def test_relevance_lines_as_bfcl_ships_them_need_no_possible_answer(tmp_path: Path) -> None:
    null = _line(id="r1", category="irrelevance", possible_answer=None, model_output="No tool.")
    absent = {k: v for k, v in _line(id="r2", category="live_relevance").items()}
    absent.pop("possible_answer")
    absent["model_output"] = [{"math.add": {"a": 1, "b": 2}}]
    verdicts = _check(tmp_path, [null, absent])
    assert [(v["id"], v["valid"], v["error_type"]) for v in verdicts] == [
        ("r1", True, None),
        ("r2", True, None),
    ]


def test_an_ast_line_without_possible_answer_is_an_input_error_naming_the_field(
    tmp_path: Path,
) -> None:
    line = _line(id="a1", possible_answer=None)
    (verdict,) = _check(tmp_path, [line])
    assert verdict["error_type"] == "input_error"
    assert "possible_answer" in verdict["error"][0]


def test_malformed_lines_get_input_errors_and_the_run_goes_on(tmp_path: Path) -> None:
    verdicts = _check(
        tmp_path,
        [
            "{not json",
            _line(id="t2", category="no_such_category"),
            {k: v for k, v in _line(id="t3").items() if k != "model_output"},
            _line(id="t4"),
        ],
    )
    assert [v["error_type"] for v in verdicts[:3]] == ["input_error"] * 3
    assert "line 1" in verdicts[0]["error"][0]
    assert verdicts[1]["id"] == "t2"
    assert "no_such_category" in verdicts[1]["error"][0]
    assert "model_output" in verdicts[2]["error"][0]
    assert verdicts[3] == {"id": "t4", "valid": True, "error_type": None, "error": []}


def test_reads_stdin_and_writes_stdout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(_line()) + "\n"))
    assert main(["check", "--cases", "-", "--output", "-"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["valid"] is True
    assert "1 valid" in captured.err


def test_unreadable_input_file_exits_2(tmp_path: Path) -> None:
    assert main(["check", "--cases", str(tmp_path / "nope"), "--output", "-"]) == 2


def test_a_malformed_decoded_call_list_is_the_wrong_output_format(tmp_path: Path) -> None:
    line = {
        "id": "simple_python_0",
        "category": "simple_python",
        "functions": [{"name": "f", "parameters": {"type": "dict", "properties": {}}}],
        "possible_answer": [{"f": {}}],
        "model_output": [{"f": [1, 2]}],
    }
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(line) + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["check", "--cases", str(src), "--output", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["error_type"] == "ast_decoder:decoder_wrong_output_format"

"""Issue 16, bugs: result lines and names that used to crash `check`, `score` and replay, or
write outside the score folder, and untrusted text that left links live in the comment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bfcl_action.cli import main
from bfcl_action.commands.check import check_line
from bfcl_action.core.errors import InputError
from bfcl_action.dataset import official
from bfcl_action.runner.replay import load_recorded_answers
from bfcl_action.safety.escape import md_inline
from bfcl_action.safety.jsonl import scan_jsonl
from tests.support.bfcl_wheel import build_wheel, release_for
from tests.support.bounded import run_bounded

GOOD = {
    "id": "simple_python_0",
    "category": "simple_python",
    "functions": [{"name": "f", "parameters": {"type": "dict", "properties": {}}}],
    "possible_answer": [{"f": {}}],
    "model_output": [{"f": "{}"}],
}
BAD_LINES = {
    "invalid UTF-8": b'{"id": "x\xff"}',
    "too deep": b"[" * 20000 + b"]" * 20000,
    "huge integer": b'{"id": "x", "n": ' + b"9" * 5000 + b"}",
}


@pytest.mark.parametrize("raw", BAD_LINES.values(), ids=BAD_LINES.keys())
def test_check_answers_a_bad_line_with_an_input_error(raw: bytes) -> None:
    out = check_line(raw, 1)
    assert out["error_type"] == "input_error", out


def test_check_goes_on_after_a_line_that_is_not_utf8(tmp_path: Path) -> None:
    cases = tmp_path / "in.jsonl"
    cases.write_bytes(BAD_LINES["invalid UTF-8"] + b"\n" + json.dumps(GOOD).encode() + b"\n")
    out = tmp_path / "out.jsonl"
    result = run_bounded(["check", "--cases", str(cases), "--output", str(out)], cwd=tmp_path)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0]["error_type"] == "input_error"
    assert lines[1]["id"] == "simple_python_0" and result.code in (0, 1)


@pytest.mark.parametrize("raw", BAD_LINES.values(), ids=BAD_LINES.keys())
def test_the_jsonl_reader_reports_such_lines_instead_of_raising(raw: bytes) -> None:
    [entry] = list(scan_jsonl(raw + b"\n"))
    assert entry.error is not None


@pytest.fixture
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wheel = build_wheel(tmp_path / "wheels")
    monkeypatch.setitem(official.RELEASES, "2026.3.23", release_for(wheel))
    monkeypatch.setenv("BFCL_ACTION_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("BFCL_ACTION_BFCL_WHEEL", str(wheel))


@pytest.mark.parametrize("raw", BAD_LINES.values(), ids=BAD_LINES.keys())
def test_score_and_replay_answer_such_lines_with_an_error_naming_the_file(
    tmp_path: Path, dataset: None, raw: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "BFCL_v4_simple_python_result.json"
    results.write_bytes(raw + b"\n")
    args = ["score", "--dataset", "bfcl@2026.3.23", "--results", str(results)]
    assert main([*args, "--model-name", "m-FC"]) == 2
    assert "simple_python_result.json" in capsys.readouterr().err
    with pytest.raises(InputError, match=r"simple_python_result\.json"):
        load_recorded_answers(results)


def test_score_never_writes_outside_the_score_dir(tmp_path: Path, dataset: None) -> None:
    results = tmp_path / "BFCL_v4_simple_python_result.json"
    results.write_text(json.dumps({"id": "simple_python_0", "result": "[]"}) + "\n")
    scores = tmp_path / "deep" / "scores"
    args = ["score", "--dataset", "bfcl@2026.3.23", "--results", str(results)]
    main([*args, "--model-name", "..", "--bfcl-score-dir", str(scores)])
    written = list(tmp_path.rglob("*_score.json"))
    assert written and all(scores in p.parents for p in written), written


def test_the_comment_defuses_bare_urls_and_gh_references() -> None:
    text = md_inline("see https://evil.example/x and www.evil.example, GH-1, #2, @bob")
    assert "https://evil" not in text and "www.evil" not in text
    assert "GH-1" not in text and "#2" not in text and "@bob" not in text


def test_untrusted_names_and_errors_cannot_start_workflow_commands(tmp_path: Path) -> None:
    from tests.support.security import project

    config = project(tmp_path)
    replay = tmp_path / "answers\n::warning title=INJ::file.jsonl"
    replay.write_text(json.dumps({"id": "leaky_tool", "result": "bad\n::error::x"}) + "\n")
    for model in (f"replay:{replay}", "replay:x\n::warning title=INJ::injected"):
        result = run_bounded(
            ["run", "--config", str(config), "--model", model, "--quiet",
             "--output", str(tmp_path / "r.json")],
            cwd=tmp_path,
        )  # fmt: skip
        assert "INJ" in result.output or result.code == 2  # shown, but defused

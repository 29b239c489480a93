"""`bfcl-action compare` end to end: files in, reports and exit code out."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from bfcl_action.cli import main
from bfcl_action.core.records import RunReport
from bfcl_action.results.digest import make_digest
from tests.support.reports import make_report


def _write(path: Path, report: RunReport) -> Path:
    path.write_text(report.model_dump_json(), encoding="utf-8")
    return path


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    base = _write(tmp_path / "base.json", make_report({"simple_python": "1" * 30}))
    head = _write(tmp_path / "head.json", make_report({"simple_python": "1" * 20 + "0" * 10}))
    return base, head


def test_regression_exits_1_and_writes_every_report(
    tmp_path: Path, runs: tuple[Path, Path]
) -> None:
    base, head = runs
    out = tmp_path / "out"
    code = main(
        ["compare", "--base", str(base), "--head", str(head),
         "--markdown", str(out / "c.md"), "--summary", str(out / "s.md"),
         "--json", str(out / "c.json"), "--junit", str(out / "j.xml"),
         "--digest", str(out / "d.txt"), "--svg-history", str(out / "h.svg"),
         "--history", str(base), "--svg-tools", str(out / "t.svg"),
         "--full-report-url", "https://example.test/run/1"]
    )  # fmt: skip
    assert code == 1
    assert (out / "c.md").read_text().startswith("### ❌")
    assert json.loads((out / "c.json").read_text())["verdict"] == "regression"
    assert len(ET.parse(out / "j.xml").getroot().findall(".//testcase")) == 30
    assert (out / "d.txt").read_text().startswith("<!-- bfcl-action:digest v1 ")
    ET.parse(out / "h.svg")
    ET.parse(out / "t.svg")


def test_base_may_be_any_text_holding_a_digest(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    _, head = runs
    summary = tmp_path / "check-run-summary.md"
    base_report = make_report({"simple_python": "1" * 30})
    summary.write_text(f"## Previous run\n\n{make_digest(base_report)}\n", encoding="utf-8")
    assert main(["compare", "--base", str(summary), "--head", str(head)]) == 1


def test_first_run_without_base_exits_0(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    _, head = runs
    out = tmp_path / "c.md"
    assert main(["compare", "--head", str(head), "--markdown", str(out)]) == 0
    assert "first run" in out.read_text().splitlines()[0]


def test_informational_never_fails(runs: tuple[Path, Path]) -> None:
    base, head = runs
    assert main(["compare", "--base", str(base), "--head", str(head), "--informational"]) == 0


def test_allowed_drop_flag_lets_the_drop_pass(runs: tuple[Path, Path]) -> None:
    base, head = runs
    assert main(["compare", "--base", str(base), "--head", str(head), "--max-drop", "40"]) == 0


def test_per_suite_allowed_drop_overrides_the_global_one(runs: tuple[Path, Path]) -> None:
    base, head = runs
    args = ["compare", "--base", str(base), "--head", str(head), "--max-drop", "40"]
    assert main([*args, "--max-drop-for", "simple_python=5"]) == 1


def test_minimum_flag_fails_a_first_run(runs: tuple[Path, Path]) -> None:
    _, head = runs
    assert main(["compare", "--head", str(head), "--min-score", "90"]) == 1


def test_malformed_threshold_flag_is_a_usage_error(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = runs
    assert main(["compare", "--base", str(base), "--head", str(head), "--max-drop-for", "x"]) == 2
    assert "expected SUITE=NUMBER" in capsys.readouterr().err


def test_base_that_is_neither_report_nor_digest_is_named(
    tmp_path: Path, runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, head = runs
    bogus = tmp_path / "bogus.txt"
    bogus.write_text("hello")
    assert main(["compare", "--base", str(bogus), "--head", str(head)]) == 2
    assert "bogus.txt: no bfcl-action digest found" in capsys.readouterr().err


def test_head_that_is_not_a_report_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "head.json"
    bad.write_text('{"results": 3}')
    assert main(["compare", "--head", str(bad)]) == 2
    assert "head.json: results: not a bfcl-action run report" in capsys.readouterr().err


def test_changed_tools_in_another_shape_says_which_command_writes_them(
    tmp_path: Path, runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = runs
    wrong = tmp_path / "impact.json"  # `impact --json`, not `--changed-tools-out`
    wrong.write_text('{"base": "main", "changes": []}')
    args = ["compare", "--base", str(base), "--head", str(head), "--changed-tools", str(wrong)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "impact.json: Input should be a valid array" in err
    assert "bfcl-action impact --changed-tools-out" in err


def test_console_summary_cannot_issue_workflow_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _write(tmp_path / "b.json", make_report({"::error::x": "1" * 12}))
    head = _write(tmp_path / "h.json", make_report({"::error::x": "0" * 12}))
    assert main(["compare", "--base", str(base), "--head", str(head)]) == 1
    out = capsys.readouterr().out
    assert "::error" not in out and "regression" in out


def test_config_thresholds_apply_and_flags_override_them(
    tmp_path: Path, runs: tuple[Path, Path]
) -> None:
    base, head = runs
    config = tmp_path / ".bfcl.yml"
    config.write_text("thresholds:\n  max_drop: 50\n", encoding="utf-8")
    args = ["compare", "--base", str(base), "--head", str(head), "--config", str(config)]
    assert main(args) == 0
    assert main([*args, "--max-drop-for", "simple_python=5"]) == 1


def test_help_states_the_thresholds_real_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    from bfcl_action.settings.thresholds import Thresholds

    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"allowed drop in points (default {Thresholds().max_drop:g})" in text
    assert f"(default {Thresholds().alpha:g})" in text

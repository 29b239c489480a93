"""`bfcl-action run` on multi-turn suites, end to end through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bfcl_action.cli import main
from tests.support.official_envs import data_root, environment_python

EXAMPLE = Path(__file__).parents[2] / "examples" / "notes-app"


def test_the_notes_example_replays_its_ground_truth_at_100_percent(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    code = main(
        [
            "run",
            "--config",
            str(EXAMPLE / ".bfcl.yml"),
            "--model",
            f"replay:{EXAMPLE / 'replay' / 'ground_truth.jsonl'}",
            "--output",
            str(out),
            "--quiet",
        ]
    )
    report = json.loads(out.read_text())
    assert code == 0
    assert report["categories"]["own_multi_turn"]["accuracy"] == 1.0
    assert report["categories"]["own_multi_turn"]["total"] == 4
    assert report["categories"]["own_simple"] == {
        **report["categories"]["own_simple"],
        "correct": 3,
        "total": 3,
    }


def test_tool_limits_are_validated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "run",
            "--config",
            str(EXAMPLE / ".bfcl.yml"),
            "--model",
            "replay:x.jsonl",
            "--tool-timeout",
            "0",
            "--output",
            str(tmp_path / "r.json"),
        ]
    )
    assert code == 2 and "--tool-timeout" in capsys.readouterr().err


@pytest.mark.skipif(
    data_root() is None or environment_python() is None, reason="official envs not available"
)
def test_official_multi_turn_categories_run_with_an_environment_interpreter(
    tmp_path: Path,
) -> None:
    from bfcl_action.core.records import Mode
    from bfcl_action.dataset import load_dataset
    from bfcl_action.multiturn.conversation import conversation_of, ground_truth_output

    cases = load_dataset("bfcl@2026.3.23", ["multi_turn"])
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"id": c.id, "result": ground_truth_output(conversation_of(c), Mode.FC)})
            + "\n"
            for c in cases
        )
    )
    out = tmp_path / "run.json"
    argv = ["run", "--dataset", "bfcl@2026.3.23", "--categories", "multi_turn", "--sample", "8"]
    argv += ["--model", f"replay:{answers}", "--env-python", str(environment_python())]
    code = main([*argv, "--output", str(out), "--quiet"])
    report = json.loads(out.read_text())
    assert code == 0 and report["summary"]["multi_turn"] == 1.0


@pytest.mark.skipif(
    data_root() is None or environment_python() is None, reason="official envs not available"
)
@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_score_judges_bfcl_multi_turn_result_files(tmp_path: Path, mode: str) -> None:
    from bfcl_action.core.records import Mode
    from bfcl_action.dataset import load_dataset
    from bfcl_action.multiturn.conversation import conversation_of, ground_truth_output

    cases = load_dataset("bfcl@2026.3.23", ["multi_turn_miss_param"])[:4]
    results = tmp_path / "results"
    results.mkdir()
    rows = [
        {"id": c.id, "result": ground_truth_output(conversation_of(c), Mode(mode))} for c in cases
    ]
    rows[0]["result"][-1] = []  # the last turn unanswered: that entry fails
    (results / "BFCL_v4_multi_turn_miss_param_result.json").write_text(
        "".join(json.dumps(r) + "\n" for r in rows)
    )
    out = tmp_path / "report.json"
    argv = ["score", "--results", str(results), "--model-name", "some-model"]
    code = main([*argv, "--env-python", str(environment_python()), "--output", str(out)])
    report = json.loads(out.read_text())
    assert code == 0 and report["mode"] == mode
    score = report["categories"]["multi_turn_miss_param"]
    assert (score["correct"], score["total"]) == (3, 4)


def test_validate_reports_a_bad_multi_turn_case_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = (EXAMPLE / "cases.multi_turn.jsonl").read_text().splitlines()[0]
    bad = json.loads(good)
    bad["id"] = "broken"
    bad["involved_classes"] = ["Missing"]
    (tmp_path / "notes_api.functions.json").write_text(
        (EXAMPLE / "notes_api.functions.json").read_text()
    )
    (tmp_path / "cases.jsonl").write_text(good + "\n" + json.dumps(bad) + "\n")
    (tmp_path / ".bfcl.yml").write_text("version: 1\nmulti_turn: [cases.jsonl]\n")
    code = main(["validate", "--config", str(tmp_path / ".bfcl.yml")])
    err = capsys.readouterr().err
    assert code == 2
    assert "cases.jsonl:2: environments: broken: no 'module:Class' for environment 'Missing'" in err


def test_environments_named_in_the_config_fill_in_for_cases(tmp_path: Path) -> None:
    from bfcl_action.cases.suites import build_cases
    from bfcl_action.settings.config import load_config

    rows = [json.loads(line) for line in (EXAMPLE / "cases.multi_turn.jsonl").open()]
    for row in rows:
        del row["environments"]
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "notes_api.functions.json").write_text(
        (EXAMPLE / "notes_api.functions.json").read_text()
    )
    (tmp_path / ".bfcl.yml").write_text(
        "version: 1\nmulti_turn: [cases.jsonl]\nenvironments: {NotesAPI: 'notes_api:NotesAPI'}\n"
    )
    cases = build_cases(load_config(tmp_path / ".bfcl.yml"), base_dir=tmp_path)
    assert [c.model_extra["environments"] for c in cases] == [
        {"NotesAPI": "notes_api:NotesAPI"}
    ] * 4


def test_reports_do_not_show_no_call_as_a_multi_turn_expectation() -> None:
    from bfcl_action.core.records import CaseResult, RunReport
    from bfcl_action.multiturn.cases import load_conversation_cases
    from bfcl_action.results.scoring import attach_case_context

    case = load_conversation_cases(EXAMPLE / "cases.multi_turn.jsonl")[0]
    result = CaseResult(id=case.id, category=case.category, valid=False)
    report = attach_case_context(RunReport(results=[result]), [case])
    assert report.results[0].expected is None
    assert report.results[0].question and "Call mom" in report.results[0].question

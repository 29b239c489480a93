"""`bfcl-action score`: BFCL result files in, a table, a run report and score files out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.cli import main
from bfcl_action.core.records import RunReport
from bfcl_action.dataset import official
from bfcl_action.results.results_io import read_score_file
from tests.support.bfcl_wheel import (
    ENTRIES_PER_CATEGORY,
    MATH_ADD_ANSWERS,
    build_wheel,
    release_for,
)

SPEC = "bfcl@2026.3.23"


@pytest.fixture(autouse=True)
def fixture_dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixture wheel stands in for the official one (pinned digest, local file)."""
    wheel = build_wheel(tmp_path / "wheels")
    monkeypatch.setitem(official.RELEASES, "2026.3.23", release_for(wheel))
    monkeypatch.setenv("BFCL_ACTION_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("BFCL_ACTION_BFCL_WHEEL", str(wheel))


def _fc(index: int, name: str = "math.add", a_value: int | None = None) -> list[dict[str, str]]:
    """BFCL FC output for fixture entry `index` (its answer is a=index, b=2)."""
    a = index if a_value is None else a_value
    return [{name: json.dumps({"a": a, "b": 2})}]


def _write_results(root: Path, category: str, group: str, rows: list[dict[str, Any]]) -> Path:
    path = root / "model-FC" / group / f"BFCL_v4_{category}_result.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def results(tmp_path: Path) -> Path:
    """simple_python all right; parallel half right; irrelevance all right (prose)."""
    root = tmp_path / "result"
    _write_results(
        root,
        "simple_python",
        "non_live",
        [{"id": f"simple_python_{i}", "result": _fc(i)} for i in range(ENTRIES_PER_CATEGORY)],
    )
    _write_results(
        root,
        "parallel",
        "non_live",
        [
            {"id": "parallel_0", "result": _fc(0), "input_token_count": 12, "latency": 0.5},
            {"id": "parallel_1", "result": _fc(1, a_value=99)},
        ],
    )
    _write_results(
        root,
        "irrelevance",
        "non_live",
        [{"id": f"irrelevance_{i}", "result": "I cannot do that."} for i in range(2)],
    )
    return root


def _score(results: Path, *extra: str) -> int:
    return main(
        ["score", "--dataset", SPEC, "--results", str(results), "--model-name", "m-FC", *extra]
    )


def test_prints_a_table_with_each_category_and_the_summary(
    results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _score(results) == 0
    out = capsys.readouterr().out
    for label in ("simple_python", "parallel", "irrelevance", "Non-Live AST", "Overall"):
        assert label in out
    assert "50.00%" in out


def test_report_holds_per_case_verdicts_scores_and_summary(results: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    assert _score(results, "--output", str(out)) == 0
    report = RunReport.model_validate_json(out.read_text())
    verdicts = {r.id: (r.valid, r.error_type) for r in report.results}
    assert verdicts["simple_python_0"] == (True, None)
    assert verdicts["parallel_1"][0] is False
    assert verdicts["parallel_1"][1] is not None
    assert report.categories["parallel"].accuracy == 0.5
    assert report.summary["non_live_ast"] == pytest.approx((1.0 + 0.5) / 2)
    assert report.summary["irrelevance"] == 1.0
    assert report.mode.value == "fc"
    assert report.datasets == [SPEC]
    parallel_0 = next(r for r in report.results if r.id == "parallel_0")
    assert (parallel_0.input_tokens, parallel_0.latency_s) == (12, 0.5)


def test_writes_bfcl_score_files(results: Path, tmp_path: Path) -> None:
    score_dir = tmp_path / "score"
    assert _score(results, "--bfcl-score-dir", str(score_dir)) == 0
    header, failures = read_score_file(
        score_dir / "m-FC" / "non_live" / "BFCL_v4_parallel_score.json"
    )
    assert header == {"accuracy": 0.5, "correct_count": 1, "total_count": 2}
    assert [f["id"] for f in failures] == ["parallel_1"]
    assert failures[0]["possible_answer"] == [{"math.add": {"a": [1], "b": [2]}}]


def test_categories_option_limits_what_is_scored(results: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    assert _score(results, "--categories", "parallel", "--output", str(out)) == 0
    report = RunReport.model_validate_json(out.read_text())
    assert list(report.categories) == ["parallel"]


def test_prompt_mode_decodes_call_text(tmp_path: Path) -> None:
    root = tmp_path / "result"
    _write_results(
        root, "multiple", "non_live", [{"id": "multiple_1", "result": "[math.add(a=1, b=2)]"}]
    )
    out = tmp_path / "report.json"
    code = main(["score", "--results", str(root), "--model-name", "m", "--output", str(out)])
    assert code == 0
    report = RunReport.model_validate_json(out.read_text())
    assert report.mode.value == "prompt"
    assert report.results[0].valid


def test_partial_results_are_scored_with_a_note(tmp_path: Path) -> None:
    root = tmp_path / "result"
    _write_results(root, "multiple", "non_live", [{"id": "multiple_0", "result": _fc(0)}])
    out = tmp_path / "report.json"
    assert _score(root, "--output", str(out)) == 0
    report = RunReport.model_validate_json(out.read_text())
    assert any("1 of 2 cases have no result" in n for n in report.notes)


def test_bad_result_line_exits_2_naming_file_and_line(
    results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = results / "model-FC" / "non_live" / "BFCL_v4_parallel_result.json"
    path.write_text(path.read_text() + '{"id": "parallel_2"}\n')
    assert _score(results) == 2
    assert f"{path}:3: result: missing field" in capsys.readouterr().err


def test_result_id_missing_from_the_dataset_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "result"
    _write_results(root, "multiple", "non_live", [{"id": "multiple_77", "result": []}])
    assert _score(root) == 2
    assert "'multiple_77' is not in the dataset" in capsys.readouterr().err


def test_underscore_to_dot_accepts_underscored_names(tmp_path: Path) -> None:
    root = tmp_path / "result"
    _write_results(
        root, "simple_python", "non_live", [{"id": "simple_python_0", "result": _fc(0, "math_add")}]
    )
    out = tmp_path / "report.json"
    assert _score(root, "--underscore-to-dot", "--mode", "fc", "--output", str(out)) == 0
    assert RunReport.model_validate_json(out.read_text()).results[0].valid


def test_a_result_folder_spelling_of_a_hosted_model_turns_underscore_to_dot_on(
    tmp_path: Path,
) -> None:
    """`openai_gpt-oss-120b` is how BFCL's result folders spell `openai/gpt-oss-120b`: its
    underscored names are right without `--underscore-to-dot` (seen scoring a published run,
    whose `multiple` fell from 174 to 67 of 200 without the flag)."""
    root = tmp_path / "result"
    _write_results(
        root, "simple_python", "non_live", [{"id": "simple_python_0", "result": _fc(0, "math_add")}]
    )
    out = tmp_path / "report.json"
    argv = ["score", "--dataset", SPEC, "--results", str(root), "--output", str(out)]
    assert main([*argv, "--model-name", "openai_gpt-oss-120b", "--mode", "fc"]) == 0
    assert RunReport.model_validate_json(out.read_text()).results[0].valid


def test_live_release_results_are_reported_under_the_release_label(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "BFCL_ACTION_LIVE_DIR", str(Path(__file__).parents[1] / "fixtures" / "dataset" / "live")
    )
    root = tmp_path / "result"
    call = [{"weather.get_forecast": json.dumps({"city": "city 1", "days": 2})}]
    _write_results(root, "live_simple", "live", [{"id": "live_simple_1-0-1", "result": call}])
    out = tmp_path / "report.json"
    code = main(
        [
            "score",
            "--dataset",
            "live@latest",
            "--results",
            str(root),
            "--model-name",
            "m-FC",
            "--output",
            str(out),
        ]
    )
    assert code == 0
    report = RunReport.model_validate_json(out.read_text())
    assert report.datasets == ["live@2026-W48"]  # resolved, so the fingerprint pins it
    assert list(report.categories) == ["live@2026-W48/live_simple"]
    assert report.summary["live@2026-W48/live_ast"] == 1.0


@pytest.mark.parametrize(
    ("name", "results", "mode"),
    [
        ("gpt-4o-2024-11-20-FC", ["text"], "fc"),
        ("nova-pro-v1.0", ["text"], "fc"),  # an FC model of BFCL's registry without -FC
        ("gpt-4o-2024-11-20", ["[f(a=1)]"], "prompt"),
        ("my-model", [[{"f": "{}"}], "text"], "fc"),  # call lists only come from FC runs
        ("my-model", ["[f(a=1)]"], "prompt"),
    ],
)
def test_mode_is_inferred_from_the_model_name_then_the_results(
    name: str, results: list[Any], mode: str
) -> None:
    from bfcl_action.commands.score import infer_mode
    from bfcl_action.results.results_io import ResultEntry

    entries = [ResultEntry(id=f"x_{i}", category="x", result=r) for i, r in enumerate(results)]
    assert infer_mode(name, entries).value == mode


def test_result_filed_under_another_category_is_an_error(
    results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = results / "model-FC" / "non_live" / "BFCL_v4_parallel_result.json"
    path.write_text(path.read_text() + json.dumps({"id": "simple_python_0", "result": []}) + "\n")
    assert _score(results) == 2
    assert f"{path}:3: id:" in capsys.readouterr().err


def test_model_name_with_markup_is_printed_literally(
    results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["score", "--results", str(results), "--model-name", "[red]x[/red]", "--mode", "fc"]
    )
    assert code == 0
    assert "[red]x[/red]" in capsys.readouterr().out


def _agentic_results(root: Path) -> None:
    """Web search base: entry 0 right, entry 1 wrong; memory kv: entry 0 ends with a call."""
    call = [{"search_engine_query": '{"keywords": "x"}'}]
    _write_results(
        root,
        "web_search_base",
        "agentic",
        [
            {"id": "web_search_base_0", "result": [[call, "It is Zhang Yiming."]]},
            {"id": "web_search_base_1", "result": [[call, "I do not know"]]},
        ],
    )
    _write_results(
        root,
        "memory_kv",
        "agentic/memory/kv",
        [
            {"id": "memory_kv_0-customer-0", "result": [[call]]},
            {"id": "memory_kv_1-customer-1", "result": [["You are 35."]]},
        ],
    )


def test_agentic_results_are_scored_and_the_leaderboard_counts_what_did_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _agentic_results(tmp_path / "result")
    score_dir = tmp_path / "score"
    argv = ["score", "--results", str(tmp_path / "result"), "--model-name", "model-FC"]
    assert main([*argv, "--bfcl-score-dir", str(score_dir)]) == 0
    out = capsys.readouterr().out
    assert "Overall of what ran (not BFCL's Overall Acc)" in out
    # web search 50% (base) and 0% (no snippet missing); memory 50%, 0, 0: agentic 0.208
    overall = (score_dir / "data_overall.csv").read_text().splitlines()
    row = dict(zip(overall[0].split(","), overall[1].split(","), strict=True))
    assert row["Overall Acc"] == f"{0.4 * (0.25 + 0.5 / 3) / 2 * 100:.2f}%"
    assert (row["Web Search Base"], row["Web Search No Snippet"]) == ("50.00%", "N/A")
    header, failures = read_score_file(
        score_dir / "model-FC" / "agentic" / "memory" / "kv" / "BFCL_v4_memory_kv_score.json"
    )
    assert header["correct_count"] == 1
    assert failures[0]["error"]["error_type"] == "agentic:no_last_message"


def test_a_category_bfcl_retired_is_named_apart_from_one_the_dataset_lacks(
    results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_results(results, "sql", "non_live", [{"id": "sql_0", "result": ""}])
    _write_results(results, "nonsense", "non_live", [{"id": "nonsense_0", "result": ""}])
    assert main(["score", "--results", str(results), "--model-name", "model-FC"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "sql is in bfcl@2026.3.23 but not supported by bfcl-action: retired upstream" in err
    assert "result files not in bfcl@2026.3.23 were skipped: nonsense" in err


def test_format_sensitivity_is_scored_per_prompt_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bfcl_action.checker.variants import PROMPT_CONFIGS, variant_id

    rows = []
    for index, config in enumerate(PROMPT_CONFIGS):
        fmt = config.return_format.value
        text = MATH_ADD_ANSWERS[fmt]
        if config.tool_call_tag and fmt != "json":  # JSON forgets the tag: fails there
            text = f"<TOOLCALL>{text}</TOOLCALL>"
        rows.append({"id": variant_id(index, config, "simple_python_1"), "result": text})
    _write_results(tmp_path / "result", "format_sensitivity", "format_sensitivity", rows)
    score_dir = tmp_path / "score"
    argv = ["score", "--results", str(tmp_path / "result"), "--model-name", "model"]
    assert main([*argv, "--bfcl-score-dir", str(score_dir)]) == 0
    assert "max delta across 26 prompt configurations" in " ".join(capsys.readouterr().out.split())
    header, failures = read_score_file(
        score_dir / "model" / "format_sensitivity" / "BFCL_v4_format_sensitivity_score.json"
    )
    assert {f["id"].split(":")[1] for f in failures} == {
        c.key for c in PROMPT_CONFIGS if c.tool_call_tag and c.return_format.value == "json"
    }
    assert (header["correct_count"], header["accuracy_max_delta"]) == (23, 100.0)
    table = (score_dir / "data_format_sensitivity.csv").read_text().splitlines()
    row = dict(zip(table[0].split(","), table[1].split(","), strict=True))
    assert row[f"Config {PROMPT_CONFIGS[0].key}"] == "100.00%"
    assert row["Format Sensitivity Max Delta"] == "100.0"


def test_run_summaries_name_the_leaderboards_overall_acc_beside_the_suites(
    results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bfcl_action.runner.evaluation import print_summary

    out = tmp_path / "report.json"
    assert (
        main(["score", "--results", str(results), "--model-name", "m-FC", "--output", str(out)])
        == 0
    )
    capsys.readouterr()
    print_summary(RunReport.model_validate_json(out.read_text()))
    line = capsys.readouterr().out.strip().splitlines()[-1]
    # non-live AST (simple 1.0 averaged with java/js as 0 -> 1/3; parallel .5; others 0)
    non_live = ((1 + 0 + 0) / 3 + 0 + 0.5 + 0) / 4
    irrelevance = (1.0 + 0) / 2
    expected = 0.1 * non_live + 0.1 * irrelevance
    assert line.startswith(f"BFCL leaderboard Overall Acc {expected * 100:.2f}% (3 of 22")

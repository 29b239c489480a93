"""`bfcl-action score` against `bfcl evaluate`'s own pipeline on the same result files.

Both score one seeded result directory of an official FC model (so `a.b` is expected as
`a_b`) covering all 13 single-turn categories: the ground truth rendered as FC tool calls,
mixed with wrong calls, prose, and calls where none belong.
They must write identical score-file headers and the same failing ids and error types, and
our summary columns must print the numbers of the leaderboard CSVs. Runs where the official
package is installed (`nox -s conformance`, or `pytest -m conformance` in such a venv).
"""

from __future__ import annotations

import csv
import json
import os
import random
import types
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.cli import main
from bfcl_action.dataset import load_dataset
from bfcl_action.models import RunReport, TestCase
from bfcl_action.results_io import bfcl_directory, read_score_file

pytestmark = pytest.mark.conformance
pytest.importorskip("bfcl_eval")

MODEL = "gpt-4o-2024-11-20-FC"  # an official FC entry with underscore_to_dot


def _render(case: TestCase, rng: random.Random) -> Any:
    """FC output for one case: mostly the first option of each answer, some noise."""
    if not case.possible_answer:
        return "I cannot help with that." if rng.random() < 0.7 else [{"lookup": '{"q": "x"}'}]
    roll = rng.random()
    if roll < 0.15:
        return [{"nope": "{}"}]
    if roll < 0.2:
        return "Sorry, no."
    calls = []
    for call in case.possible_answer:
        ((name, params),) = call.items()
        args = {k: options[0] for k, options in params.items() if options and options[0] != ""}
        if roll < 0.3 and args:
            args.pop(next(iter(args)))
        calls.append({name.replace(".", "_"): json.dumps(args)})
    return calls


@pytest.fixture(scope="module")
def result_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = random.Random(20260323)
    root = tmp_path_factory.mktemp("results") / MODEL
    by_category: dict[str, list[dict[str, Any]]] = {}
    for case in load_dataset("bfcl@2026.3.23"):
        by_category.setdefault(case.category, []).append(
            {"id": case.id, "result": _render(case, rng)}
        )
    for category, rows in by_category.items():
        path = root / bfcl_directory(category) / f"BFCL_v4_{category}_result.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


@pytest.fixture(scope="module")
def official_scores(result_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Score files and leaderboard CSVs written by bfcl_eval's evaluation functions."""
    os.environ.setdefault("BFCL_PROJECT_ROOT", str(tmp_path_factory.mktemp("bfclroot")))
    from tests.conformance.official import install_sdk_stubs

    install_sdk_stubs()
    from bfcl_eval.eval_checker import eval_runner, eval_runner_helper
    from bfcl_eval.model_handler.api_inference.openai_completion import (
        OpenAICompletionsHandler,
    )
    from bfcl_eval.utils import load_file

    fc_self = types.SimpleNamespace(is_fc_model=True)

    def decode_ast(result: Any, language: Any, has_tool_call_tag: bool = False) -> Any:
        return OpenAICompletionsHandler.decode_ast(fc_self, result, language, has_tool_call_tag)

    # What get_handler(MODEL) would build, minus the vendor SDK it needs for inference only.
    handler = types.SimpleNamespace(decode_ast=decode_ast)
    score_dir = tmp_path_factory.mktemp("official_score")
    table: dict[str, Any] = {}
    for path in sorted(result_dir.rglob("BFCL_v4_*_result.json")):
        category = path.name.removeprefix("BFCL_v4_").removesuffix("_result.json")
        entries = load_file(path, sort_by_id=True)
        eval_runner.evaluate_task(
            category, result_dir.parent, score_dir, entries, MODEL, handler, table
        )
    eval_runner_helper.generate_leaderboard_csv(table, score_dir)
    return score_dir


@pytest.fixture(scope="module")
def ours(result_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[RunReport, Path]:
    out = tmp_path_factory.mktemp("ours")
    code = main(
        [
            "score",
            "--results",
            str(result_dir),
            "--model-name",
            MODEL,
            "--output",
            str(out / "report.json"),
            "--bfcl-score-dir",
            str(out / "score"),
        ]
    )
    assert code == 0
    return RunReport.model_validate_json((out / "report.json").read_text()), out / "score"


def _score_files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in root.rglob("BFCL_v4_*_score.json")}


def test_score_files_have_the_same_layout_and_headers(
    official_scores: Path, ours: tuple[RunReport, Path]
) -> None:
    theirs = _score_files(official_scores)
    mine = _score_files(ours[1])
    assert sorted(mine) == sorted(theirs)
    for rel, path in theirs.items():
        assert path.read_text().splitlines()[0] == mine[rel].read_text().splitlines()[0], rel


def test_the_same_entries_fail_with_the_same_error_types(
    official_scores: Path, ours: tuple[RunReport, Path]
) -> None:
    mine = _score_files(ours[1])
    for rel, path in _score_files(official_scores).items():
        _, their_failures = read_score_file(path)
        _, my_failures = read_score_file(mine[rel])
        assert [(f["id"], f["error_type"]) for f in my_failures] == [
            (f["id"], f["error_type"]) for f in their_failures
        ], rel


def _csv_row(path: Path) -> dict[str, str]:
    with path.open(newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    return row


def _pct(value: float | None) -> str:
    assert value is not None
    return f"{value * 100:.2f}%"


def test_summary_columns_print_the_leaderboard_numbers(
    official_scores: Path, ours: tuple[RunReport, Path]
) -> None:
    summary = ours[0].summary
    non_live = _csv_row(official_scores / "data_non_live.csv")
    live = _csv_row(official_scores / "data_live.csv")
    overall = _csv_row(official_scores / "data_overall.csv")
    assert _pct(summary["non_live_ast"]) == non_live["AST Summary"]
    assert _pct(summary["non_live_simple_ast"]) == non_live["Simple AST"]
    assert _pct(summary["live_ast"]) == live["AST Summary"]
    assert _pct(summary["irrelevance"]) == overall["Irrelevance Detection"]
    assert _pct(summary["relevance"]) == overall["Relevance Detection"]


def test_overall_is_the_leaderboard_overall_renormalised_to_what_ran(
    official_scores: Path, ours: tuple[RunReport, Path]
) -> None:
    # The leaderboard counts the groups that did not run (multi-turn 30, agentic 40 of 100)
    # as 0; ours renormalises over the single-turn groups that ran (30 of 100).
    official = _csv_row(official_scores / "data_overall.csv")["Overall Acc"]
    overall = ours[0].summary["overall"]
    assert overall is not None
    assert _pct(overall * 30 / 100) == official

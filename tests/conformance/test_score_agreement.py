"""`bfcl-action score` against `bfcl evaluate`'s own pipeline on the same result files.

Both score one seeded result directory per mode covering all 13 single-turn categories: the
ground truth rendered as FC tool calls of an official FC model (which expects `a.b` as
`a_b`) or as prompt-mode call text (Python, Java and JavaScript syntax) of an official
prompt model, mixed with dropped arguments, wrong calls, prose, and calls where none belong.
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
from bfcl_action.records import CategoryScore, RunReport, TestCase
from bfcl_action.results_io import bfcl_directory, read_score_file
from bfcl_action.scoring import summarize

pytestmark = pytest.mark.conformance
pytest.importorskip("bfcl_eval")

MODELS = {
    "fc": "gpt-4o-2024-11-20-FC",  # an official FC entry with underscore_to_dot
    "prompt": "gpt-4o-2024-11-20",  # an official prompt entry
}


def _fc(case: TestCase, rng: random.Random) -> Any:
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


def _prompt(case: TestCase, rng: random.Random) -> str:
    """Prompt-mode call text; Java/JS answers are source text and are written as such."""
    if not case.possible_answer:
        return "I cannot help with that." if rng.random() < 0.7 else "[lookup(q='x')]"
    roll = rng.random()
    if roll < 0.15:
        return "[nope()]"
    if roll < 0.2:
        return "Sorry, no."
    python = case.language.value == "python"
    calls = []
    for call in case.possible_answer:
        ((name, params),) = call.items()
        args = [
            f"{key}={options[0]!r}" if python else f"{key}={options[0]}"
            for key, options in params.items()
            if options and options[0] != ""
        ]
        if roll < 0.3 and args:
            args.pop(0)
        calls.append(f"{name}({', '.join(args)})")
    return "[" + ", ".join(calls) + "]"


@pytest.fixture(scope="module", params=sorted(MODELS))
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def result_dir(mode: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = random.Random(20260323)
    render = _fc if mode == "fc" else _prompt
    root = tmp_path_factory.mktemp("results") / MODELS[mode]
    by_category: dict[str, list[dict[str, Any]]] = {}
    for case in load_dataset("bfcl@2026.3.23"):
        by_category.setdefault(case.category, []).append(
            {"id": case.id, "result": render(case, rng)}
        )
    for category, rows in by_category.items():
        path = root / bfcl_directory(category) / f"BFCL_v4_{category}_result.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


@pytest.fixture(scope="module")
def official_scores(mode: str, result_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Score files and leaderboard CSVs written by bfcl_eval's evaluation functions."""
    os.environ.setdefault("BFCL_PROJECT_ROOT", str(tmp_path_factory.mktemp("bfclroot")))
    from tests.conformance.official import sdk_stubs

    with sdk_stubs():
        from bfcl_eval.eval_checker import eval_runner, eval_runner_helper
        from bfcl_eval.model_handler.api_inference.openai_completion import (
            OpenAICompletionsHandler,
        )
        from bfcl_eval.model_handler.utils import default_decode_ast_prompting
        from bfcl_eval.utils import load_file

    fc_self = types.SimpleNamespace(is_fc_model=True)

    def fc_decode(result: Any, language: Any, has_tool_call_tag: bool = False) -> Any:
        return OpenAICompletionsHandler.decode_ast(fc_self, result, language, has_tool_call_tag)

    # What get_handler(model) would build, minus the vendor SDK it needs for inference only.
    decode = fc_decode if mode == "fc" else default_decode_ast_prompting
    handler = types.SimpleNamespace(decode_ast=decode)
    score_dir = tmp_path_factory.mktemp("official_score")
    table: dict[str, Any] = {}
    for path in sorted(result_dir.rglob("BFCL_v4_*_result.json")):
        category = path.name.removeprefix("BFCL_v4_").removesuffix("_result.json")
        entries = load_file(path, sort_by_id=True)
        eval_runner.evaluate_task(
            category, result_dir.parent, score_dir, entries, MODELS[mode], handler, table
        )
    eval_runner_helper.generate_leaderboard_csv(table, score_dir)
    return score_dir


@pytest.fixture(scope="module")
def ours(
    mode: str, result_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[RunReport, Path]:
    out = tmp_path_factory.mktemp("ours")
    code = main(
        [
            "score",
            "--results",
            str(result_dir),
            "--model-name",
            MODELS[mode],
            "--output",
            str(out / "report.json"),
            "--bfcl-score-dir",
            str(out / "score"),
        ]
    )
    assert code == 0
    return RunReport.model_validate_json((out / "report.json").read_text()), out / "score"


KNOWN_VERDICT_GAPS: dict[str, str] = {}
"""Cases whose verdict still differs from upstream in these renderings (checker/decoder
work, not scoring). A listed case may start agreeing; any other difference fails."""


def _score_files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in root.rglob("BFCL_v4_*_score.json")}


def _failures(path: Path) -> dict[str, str | None]:
    _, failures = read_score_file(path)
    return {f["id"]: f["error_type"] for f in failures}


def _differing_ids(official_scores: Path, mine: Path) -> dict[str, set[str]]:
    """Per score file, the ids that fail on one side only or with another error type."""
    theirs_files, my_files = _score_files(official_scores), _score_files(mine)
    assert sorted(my_files) == sorted(theirs_files)
    differing = {}
    for rel, path in theirs_files.items():
        theirs, ours = _failures(path), _failures(my_files[rel])
        ids = {i for i in theirs.keys() | ours.keys() if theirs.get(i, "") != ours.get(i, "")}
        if ids:
            differing[rel] = ids
    return differing


def _allow_known_gaps(differing: dict[str, set[str]]) -> None:
    unknown = {rel: ids - KNOWN_VERDICT_GAPS.keys() for rel, ids in differing.items()}
    assert not any(unknown.values()), unknown
    if differing:
        gaps = sorted(set().union(*differing.values()))
        pytest.xfail("known verdict gaps: " + "; ".join(KNOWN_VERDICT_GAPS[i] for i in gaps))


def test_the_same_entries_fail_with_the_same_error_types(
    official_scores: Path, ours: tuple[RunReport, Path]
) -> None:
    _allow_known_gaps(_differing_ids(official_scores, ours[1]))


def test_score_files_have_the_same_layout_and_headers(
    official_scores: Path, ours: tuple[RunReport, Path]
) -> None:
    mine = _score_files(ours[1])
    differing = _differing_ids(official_scores, ours[1])
    for rel, path in _score_files(official_scores).items():
        if rel not in differing:
            assert path.read_text().splitlines()[0] == mine[rel].read_text().splitlines()[0], rel
    _allow_known_gaps(differing)


def _csv_row(path: Path) -> dict[str, str]:
    with path.open(newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    return row


def _pct(value: float | None) -> str:
    assert value is not None
    return f"{value * 100:.2f}%"


def _official_counts(official_scores: Path) -> dict[str, CategoryScore]:
    """Per-category scores as the official tool counted them (its score-file headers)."""
    scores = {}
    for rel, path in _score_files(official_scores).items():
        header, _ = read_score_file(path)
        category = Path(rel).name.removeprefix("BFCL_v4_").removesuffix("_score.json")
        scores[category] = CategoryScore(
            suite=category,
            category=category,
            correct=header["correct_count"],
            total=header["total_count"],
            accuracy=header["accuracy"],
        )
    return scores


def test_summary_columns_print_the_leaderboard_numbers(official_scores: Path) -> None:
    # From the official per-category counts, so this checks the formulas alone.
    summary = summarize(_official_counts(official_scores))
    non_live = _csv_row(official_scores / "data_non_live.csv")
    live = _csv_row(official_scores / "data_live.csv")
    overall = _csv_row(official_scores / "data_overall.csv")
    assert _pct(summary["non_live_ast"]) == non_live["AST Summary"]
    assert _pct(summary["non_live_simple_ast"]) == non_live["Simple AST"]
    assert _pct(summary["live_ast"]) == live["AST Summary"]
    assert _pct(summary["irrelevance"]) == overall["Irrelevance Detection"]
    assert _pct(summary["relevance"]) == overall["Relevance Detection"]


def test_overall_is_the_leaderboard_overall_renormalised_to_what_ran(
    official_scores: Path,
) -> None:
    # The leaderboard counts the groups that did not run (multi-turn 30, agentic 40 of 100)
    # as 0; ours renormalises over the single-turn groups that ran (30 of 100).
    official = _csv_row(official_scores / "data_overall.csv")["Overall Acc"]
    overall = summarize(_official_counts(official_scores))["overall"]
    assert overall is not None
    assert _pct(overall * 30 / 100) == official


def test_report_summary_equals_the_summary_of_its_own_scores(
    ours: tuple[RunReport, Path],
) -> None:
    report = ours[0]
    assert report.summary == summarize(report.categories)

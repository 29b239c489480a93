"""`bfcl-action score`: score BFCL result files as the official tool writes them.

    bfcl-action score --dataset bfcl@2026.3.23 --results result/gpt-4o-FC --model-name gpt-4o-FC

Reads `<group>/BFCL_v4_<category>_result.json` files (or one file), checks every entry
against the dataset's possible answers, prints per-category and summary accuracies, and
optionally writes the run report (`--output`) and BFCL-layout score files
(`--bfcl-score-dir`).
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from bfcl_action.compare.runs import percent
from bfcl_action.core.categories import (
    AGENTIC_OFFICIAL,
    NOT_SCORED,
    parse_categories,
)
from bfcl_action.core.errors import InputError
from bfcl_action.core.records import CaseResult, Mode, RunReport, TestCase
from bfcl_action.dataset import dataset_categories, load_dataset
from bfcl_action.dataset.official import official_sizes
from bfcl_action.results.leaderboard import (
    FormatSensitivity,
    Leaderboard,
    cell_text,
    format_sensitivity_stats,
    latency_stats,
    leaderboard_of,
)
from bfcl_action.results.results_io import (
    ResultEntry,
    read_results,
    write_leaderboard_files,
    write_score_files,
)
from bfcl_action.results.run_reports import save_report
from bfcl_action.results.scoring import SUMMARY_COLUMNS, build_report

if TYPE_CHECKING:
    from bfcl_action.multiturn.check import ExecutionOptions

SUMMARY_TITLES = {
    "overall": "Overall of what ran (not BFCL's Overall Acc)",
    "non_live_ast": "Non-Live AST",
    "non_live_simple_ast": "  Non-Live simple AST",
    "live_ast": "Live AST",
    "irrelevance": "Irrelevance",
    "relevance": "Relevance",
    "multi_turn": "Multi-turn (of what ran)",
    "agentic": "Agentic (of what ran)",
    "own": "Own suites",
}


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "score",
        help="score BFCL result files (as the official tool writes them)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--dataset", default="bfcl@2026.3.23", help="dataset spec (default: %(default)s)"
    )
    parser.add_argument(
        "--results",
        required=True,
        type=Path,
        help="a result directory (<group>/BFCL_v4_<category>_result.json) or one result file",
    )
    parser.add_argument("--model-name", required=True, help="model name recorded in the report")
    parser.add_argument(
        "--mode",
        choices=[m.value for m in Mode],
        default=None,
        help="how outputs are decoded; default: fc for BFCL FC model names (-FC) or when "
        "results hold call lists, else prompt",
    )
    parser.add_argument(
        "--underscore-to-dot",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="accept `a_b` for an expected `a.b` (FC models whose API forbids dots); "
        "default: from the table of known FC models",
    )
    parser.add_argument(
        "--categories",
        default=None,
        help="comma list of categories or groups to score (default: all with results)",
    )
    parser.add_argument(
        "--env-python",
        metavar="PATH",
        help="interpreter hosting the multi-turn environments (docs/multi-turn.md); "
        "multi-turn result files are scored only when they are importable",
    )
    parser.add_argument("--output", type=Path, help="write the run report (JSON) here")
    parser.add_argument(
        "--bfcl-score-dir", type=Path, help="write BFCL-layout score files under this folder"
    )
    parser.set_defaults(func=run)


def infer_mode(model_name: str, entries: Sequence[ResultEntry] = ()) -> Mode:
    """FC for BFCL's FC names (`<model>-FC` and the registry's FC models without the
    suffix); for other names, FC if any result is a call list (prompt results are always
    text), else prompt."""
    from bfcl_action.checker.models_table import DOT_KEEPING_FC_MODELS, UNDERSCORE_TO_DOT_MODELS

    name = model_name.strip()
    if name.upper().endswith("-FC"):
        return Mode.FC
    known_fc = UNDERSCORE_TO_DOT_MODELS | DOT_KEEPING_FC_MODELS
    if name in known_fc or name.replace("_", "/") in known_fc:
        return Mode.FC
    return Mode.FC if any(_has_calls(e.result) for e in entries) else Mode.PROMPT


def _has_calls(result: Any) -> bool:
    """A call list (FC); for a multi-turn result (turns of steps), a step that is one."""
    if not isinstance(result, list):
        return False
    if result and all(isinstance(turn, list) for turn in result):
        steps = [step for turn in result for step in turn]
        if steps and all(isinstance(s, (str, list)) for s in steps):
            return any(isinstance(s, list) and s and isinstance(s[0], dict) for s in steps)
    return True


def default_underscore_to_dot(model_name: str, mode: Mode) -> bool:
    """Whether BFCL would turn `a.b` into `a_b` for this model (FC models only)."""
    from bfcl_action.checker import needs_underscore_to_dot

    return needs_underscore_to_dot(model_name, mode)


def score_entries(
    entries: Sequence[ResultEntry],
    cases: dict[str, TestCase],
    *,
    mode: Mode,
    underscore_to_dot: bool,
    multi_turn: ExecutionOptions | None = None,
) -> list[CaseResult]:
    """Check each result entry against its case; an id the dataset lacks is an input error.

    Multi-turn entries are judged by running their calls (`bfcl_action.multiturn`)."""
    from bfcl_action.checker import check_case  # imported here so `--help` never needs it
    from bfcl_action.core.categories import is_multi_turn
    from bfcl_action.multiturn.check import check_conversation

    results: list[CaseResult] = []
    for entry in entries:
        case = cases.get(entry.id)
        if case is None or case.category != entry.category:
            raise InputError(
                f"id {entry.id!r} is not in the dataset's {entry.category!r} cases",
                file=entry.file,
                line=entry.line,
                field="id",
            )
        if is_multi_turn(case.category):
            result = check_conversation(case, entry.result, mode=mode, options=multi_turn)
        else:
            result = check_case(case, entry.result, mode=mode, underscore_to_dot=underscore_to_dot)
        update: dict[str, Any] = {"suite": case.label(), "model_output": entry.result}
        if isinstance(entry.input_token_count, int):
            update["input_tokens"] = entry.input_token_count
        if isinstance(entry.output_token_count, int):
            update["output_tokens"] = entry.output_token_count
        if isinstance(entry.latency, int | float):
            update["latency_s"] = float(entry.latency)
        results.append(result.model_copy(update=update))
    return results


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=False)
    warn = Console(stderr=True)
    entries = read_results(args.results)
    available = dataset_categories(
        args.dataset, multi_turn=True, agentic=True, format_sensitivity=True
    )
    present = [c for c in available if any(e.category == c for e in entries)]
    chosen = parse_categories(args.categories, available) if args.categories else present
    notes = skipped_notes({e.category for e in entries} - set(available), args.dataset)
    no_results = [c for c in chosen if c not in present]
    if no_results:
        notes.append(f"no results for: {', '.join(no_results)}")
    chosen = [c for c in chosen if c in present]
    if not chosen:
        raise InputError(
            f"no results to score for {args.dataset} (categories with results: "
            f"{', '.join(sorted({e.category for e in entries})) or 'none'})",
            file=str(args.results),
        )
    cases = {c.id: c for c in load_dataset(args.dataset, chosen)}
    selected = [e for e in entries if e.category in chosen]
    expected = Counter(c.category for c in cases.values())
    answered = Counter(e.category for e in selected)
    for category in chosen:
        if answered[category] < expected[category]:
            notes.append(
                f"{category}: {expected[category] - answered[category]} of {expected[category]} "
                "cases have no result; accuracy is over the cases present (BFCL's partial eval)"
            )

    mode = Mode(args.mode) if args.mode else infer_mode(args.model_name, selected)
    u2d = (
        args.underscore_to_dot
        if args.underscore_to_dot is not None
        else default_underscore_to_dot(args.model_name, mode)
    )
    from bfcl_action.multiturn.check import ExecutionOptions

    multi_turn = ExecutionOptions(python=args.env_python)
    results = score_entries(
        selected, cases, mode=mode, underscore_to_dot=u2d, multi_turn=multi_turn
    )
    report = build_report(
        results,
        model=args.model_name,
        mode=mode,
        datasets=sorted({c.dataset for c in cases.values()}) or [args.dataset],
        settings={"underscore_to_dot": u2d},
        notes=notes,
    )
    for note in notes:
        warn.print(f"[yellow]note:[/yellow] {escape(note)}", highlight=False)
    console.print(score_table(report))
    if args.output:
        save_report(report, args.output)
        console.print(f"report written to {args.output}", highlight=False)
    sizes = official_sizes(report.datasets)
    board = leaderboard_of(report, sizes) if sizes is not None else None
    figures = format_sensitivity_stats(results)
    if board is not None:
        console.print(leaderboard_table(board, figures))
    if args.bfcl_score_dir:
        written = write_score_files(
            results, args.bfcl_score_dir, model_name=args.model_name, cases=cases
        )
        if board is not None:
            written += write_leaderboard_files(
                board,
                args.bfcl_score_dir,
                model_name=args.model_name,
                latency=latency_stats(results),
                format_sensitivity=figures,
            )
        console.print(
            f"{len(written)} BFCL score files written under {args.bfcl_score_dir}",
            highlight=False,
        )
    return 0


def skipped_notes(categories: set[str], dataset: str) -> list[str]:
    """Why result files were not scored: a memory prerequisite (bfcl-eval skips those too),
    a category of BFCL's data that bfcl-action does not score yet, or one the dataset lacks."""
    prereq = sorted(c for c in categories if c.removesuffix("_prereq") in AGENTIC_OFFICIAL)
    unsupported = sorted(c for c in categories if c in NOT_SCORED and c not in prereq)
    unknown = sorted(categories - set(prereq) - set(unsupported))
    notes = []
    if prereq:
        notes.append(
            "memory prerequisite entries are not scored (as in bfcl-eval): " + ", ".join(prereq)
        )
    for name in unsupported:
        notes.append(f"{name} is in {dataset} but not supported by bfcl-action: {NOT_SCORED[name]}")
    if unknown:
        notes.append(f"result files not in {dataset} were skipped: {', '.join(unknown)}")
    return notes


LEADERBOARD_ROWS = [
    ("Overall Acc", "Overall Acc"),
    ("Non-Live AST Acc", "  Non-Live AST"),
    ("Live Acc", "  Live"),
    ("Irrelevance Detection", "  Irrelevance"),
    ("Multi Turn Acc", "  Multi Turn"),
    ("Web Search Acc", "  Web Search"),
    ("Memory Acc", "  Memory"),
    ("Relevance Detection", "Relevance (not in Overall Acc)"),
]


def leaderboard_table(board: Leaderboard, figures: FormatSensitivity | None = None) -> Table:
    """The leaderboard's headline columns as bfcl-eval computes them, and the format
    sensitivity figures when that category was scored (never part of Overall Acc)."""
    table = Table(
        title="BFCL leaderboard (bfcl-eval's formulas: what did not run counts as 0, shown N/A)"
    )
    table.add_column("Column")
    table.add_column("Accuracy", justify="right")
    for key, title in LEADERBOARD_ROWS:
        table.add_row(escape(title), cell_text(board.overall[key]))
    if figures is not None:
        table.add_section()
        table.add_row(
            f"Format sensitivity: max delta across {len(figures.configs)} prompt configurations",
            f"{figures.max_delta:.2f} pp",
        )
        table.add_row("Format sensitivity: standard deviation", f"{figures.std:.2f} pp")
    if board.missing:
        table.caption = escape(
            f"{len(board.missing)} leaderboard categories did not run and count as 0: "
            + ", ".join(board.missing)
        )
    return table


def score_table(report: RunReport) -> Table:
    """Per-suite rows, then the summary columns that have a value."""
    title = f"{report.model} ({report.mode.value}) on {', '.join(report.datasets)}"
    table = Table(title=escape(title))
    table.add_column("Suite")
    table.add_column("Correct", justify="right")
    table.add_column("Total", justify="right")
    table.add_column("Accuracy", justify="right")
    for label, score in report.categories.items():
        infra = f" (+{score.infra_errors} infra)" if score.infra_errors else ""
        table.add_row(
            escape(label),
            str(score.correct),
            f"{score.total}{infra}",
            percent(score.accuracy, digits=2, unit="%"),
        )
    rows = [(k, v) for k, v in report.summary.items() if v is not None]
    if rows:
        table.add_section()
        order = {c: i for i, c in enumerate(SUMMARY_COLUMNS)}
        for key, value in sorted(rows, key=lambda kv: ("/" in kv[0], order.get(kv[0], 99))):
            name = SUMMARY_TITLES.get(key, key)
            table.add_row(escape(name), "", "", percent(value, digits=2, unit="%"), style="bold")
    return table

"""BFCL's result and score files: read them as the official tool writes them, write our own.

Result files are JSON Lines named `BFCL_v4_<category>_result.json`, one `{"id", "result",
...}` per line, laid out `<group>/` (`non_live`, `live`) under a model folder. Score files
are `BFCL_v4_<category>_score.json` under `<score dir>/<model>/<group>/`: a header line
`{"accuracy", "correct_count", "total_count"}`, then one line per failing entry. Beside
them, the leaderboard's CSV files (`write_leaderboard_files`).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from bfcl_action.core.categories import CATEGORIES, Checker, Directory
from bfcl_action.core.errors import InputError
from bfcl_action.core.records import CaseResult, TestCase
from bfcl_action.results.leaderboard import (
    OVERALL_ACC,
    FormatSensitivity,
    LatencyStats,
    Leaderboard,
    cell_text,
    format_sensitivity_stats,
)
from bfcl_action.safety.escape import log_line
from bfcl_action.safety.jsonl import read_jsonl

VERSION_PREFIX = "BFCL_v4"
RESULT_FILE_RE = re.compile(rf"^{VERSION_PREFIX}_(\w+?)_result\.json$")
_ID_INDEX_RE = re.compile(r"^(\w+?)_(\d+)(?:-\d+-\d+)?$")


class ResultEntry(BaseModel):
    """One line of a BFCL result file, with where it came from."""

    model_config = ConfigDict(extra="allow")

    id: str
    category: str
    result: Any = None
    input_token_count: Any = None
    output_token_count: Any = None
    latency: Any = None
    file: str = ""
    line: int = 0


def bfcl_directory(category: str) -> str:
    """BFCL's folder for a category (the table's `folder`, e.g. `agentic/memory/kv`); unknown
    suites go under `own`."""
    known = CATEGORIES.get(category)
    return known.folder if known else Directory.OWN.value


def category_from_path(path: Path) -> str | None:
    match = RESULT_FILE_RE.match(path.name)
    return match.group(1) if match else None


def category_from_id(entry_id: str) -> str | None:
    """`live_simple_19-3-15` -> `live_simple`; None when the id has no BFCL shape."""
    match = _ID_INDEX_RE.match(entry_id.split(":")[0])
    return match.group(1) if match else None


def find_result_files(path: Path) -> dict[str, Path]:
    """Result files under `path` by category (or `path` itself when it is a file).

    A directory may hold the files directly, under `<group>/`, or under one model folder;
    two files for the same category (e.g. two model folders) are ambiguous and refused.
    """
    if not path.exists():
        raise InputError("no such file or directory", file=str(path))
    if path.is_file():
        return {category_from_path(path) or "": path}
    found: dict[str, Path] = {}
    for file in sorted(path.rglob(f"{VERSION_PREFIX}_*_result.json")):
        category = category_from_path(file)
        if category is None:
            continue
        if category in found:
            raise InputError(
                f"two result files for category {category!r}: {found[category]} and {file}; "
                "point --results at one model's folder",
                file=str(path),
            )
        found[category] = file
    if not found:
        raise InputError(f"no {VERSION_PREFIX}_<category>_result.json files found", file=str(path))
    return found


def read_result_file(path: Path, category: str | None = None) -> list[ResultEntry]:
    """Parse one result file; bad lines raise InputError naming the file and line.

    `category` defaults to the one in the file name; failing that, each line's id decides.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read result file: {exc.strerror}", file=str(path)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text: {exc.reason}", file=str(path)) from None
    file_category = category or category_from_path(path)
    entries: list[ResultEntry] = []
    seen: dict[str, int] = {}
    for number, row in read_jsonl(text, file=str(path)):
        entry_id = row.get("id")
        if not isinstance(entry_id, str) or not entry_id:
            raise InputError(
                f"expected a non-empty string, found {entry_id!r}",
                file=str(path),
                line=number,
                field="id",
            )
        if "result" not in row:
            raise InputError("missing field", file=str(path), line=number, field="result")
        if entry_id in seen:
            raise InputError(
                f"duplicate id {entry_id!r} (first on line {seen[entry_id]})",
                file=str(path),
                line=number,
                field="id",
            )
        seen[entry_id] = number
        entry_category = file_category or category_from_id(entry_id)
        if not entry_category:
            raise InputError(
                f"cannot tell the category of {entry_id!r}: name the file "
                f"{VERSION_PREFIX}_<category>_result.json",
                file=str(path),
                line=number,
                field="id",
            )
        fields = {k: v for k, v in row.items() if k not in {"category", "file", "line"}}
        entries.append(ResultEntry(**fields, category=entry_category, file=str(path), line=number))
    return entries


def read_results(path: Path) -> list[ResultEntry]:
    """Every result entry under `path` (a result directory or one result file)."""
    entries: list[ResultEntry] = []
    for category, file in find_result_files(path).items():
        entries.extend(read_result_file(file, category or None))
    return entries


# --- writing ------------------------------------------------------------------------------


def _dump(rows: Iterable[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False, default=str) + "\n" for row in rows)


def _suite_dir(result: CaseResult) -> Path:
    """Official suites go straight under BFCL's group folder; others (`live@W/cat`) get a
    folder per dataset so they never overwrite the official file of the same category."""
    label = result.label()
    prefix = Path(label).parent if "/" in label else Path()
    return prefix / bfcl_directory(result.category)


def _inside(path: Path, directory: Path) -> Path:
    """`path` unless it resolves outside `directory` (a model or suite name such as `..`)."""
    root = directory.resolve()
    real = path.resolve()
    if real != root and root not in real.parents:
        raise InputError(
            f"refusing to write outside {directory}: a model or suite name leads to "
            f"{log_line(real, 200)}",
            file=str(directory),
        )
    return path


def model_folder(model_name: str) -> str:
    """The folder of a model's files (BFCL's rule: `/` becomes `_`); never `.`, `..` or empty."""
    folder = model_name.replace("/", "_").replace("\\", "_")
    if folder.strip(".") == "" or folder.startswith("."):
        folder = "_" + folder
    return folder


def write_result_files(results: Sequence[CaseResult], directory: Path) -> list[Path]:
    """Write model outputs as BFCL result files, so the official tool can score our runs."""
    grouped: dict[Path, list[CaseResult]] = defaultdict(list)
    for result in results:
        name = f"{VERSION_PREFIX}_{result.category}_result.json"
        grouped[_inside(directory / _suite_dir(result) / name, directory)].append(result)
    written: list[Path] = []
    for path, rows in grouped.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = []
        for r in sorted(rows, key=lambda r: id_sort_key(r.id)):
            line: dict[str, Any] = {"id": r.id, "result": r.model_output}
            if r.input_tokens is not None:
                line["input_token_count"] = r.input_tokens
            if r.output_tokens is not None:
                line["output_token_count"] = r.output_tokens
            if r.latency_s is not None:
                line["latency"] = r.latency_s
            lines.append(line)
        path.write_text(_dump(lines), encoding="utf-8")
        written.append(path)
    return written


def id_sort_key(entry_id: str) -> tuple[str, int, str]:
    """BFCL's order: by category, then the numeric index (`simple_python_10` after `_9`)."""
    match = _ID_INDEX_RE.match(entry_id.split(":")[0])
    if match:
        return match.group(1), int(match.group(2)), entry_id
    return entry_id, -1, entry_id


def bfcl_prompt(case: TestCase) -> dict[str, Any]:
    """A case back in BFCL's entry form (`function`, not `functions`)."""
    return {
        "id": case.id,
        "question": [[m.model_dump(exclude_none=False) for m in turn] for turn in case.question],
        "function": [f.model_dump(exclude={"source"}) for f in case.functions],
    }


def score_file_lines(
    results: Sequence[CaseResult],
    *,
    model_name: str,
    category: str,
    cases: Mapping[str, TestCase] | None = None,
) -> list[dict[str, Any]]:
    """The lines of one BFCL score file: header, then each failing entry as BFCL writes it.

    Cases with an infrastructure error are left out of the counts, as everywhere else here.
    """
    scored = [r for r in results if r.infra_error is None]
    correct = sum(1 for r in scored if r.valid)
    total = len(scored)
    lines: list[dict[str, Any]] = [
        {
            "accuracy": correct / total if total else 0.0,
            "correct_count": correct,
            "total_count": total,
        }
    ]
    known = CATEGORIES.get(category)
    figures = format_sensitivity_stats(scored) if known and known.prompt_variants else None
    if figures is not None:  # bfcl-eval's header extras for format sensitivity
        lines[0].update(
            accuracy_max_delta=figures.max_delta,
            accuracy_variance=figures.variance,
            accuracy_std=figures.std,
            **{key: c.model_dump() for key, c in figures.configs.items()},
        )
    checker = known.checker if known else Checker.AST
    for r in sorted(scored, key=lambda r: id_sort_key(r.id)):
        if r.valid:
            continue
        case = cases.get(r.id) if cases is not None else None
        prompt = bfcl_prompt(case) if case is not None else {"id": r.id}
        decoded = [{c.name: c.arguments} for c in r.decoded] if r.decoded is not None else None
        line: dict[str, Any] = {
            "id": r.id,
            "model_name": model_name,
            "test_category": category,
            "valid": False,
        }
        if checker is Checker.AGENTIC:  # bfcl-eval nests the error type here
            line.update(
                error={"error_message": r.error, "error_type": r.error_type},
                prompt=prompt,
                model_result_raw=r.model_output,
                possible_answer=case.answer_texts if case is not None else None,
            )
        elif checker in {Checker.IRRELEVANCE, Checker.RELEVANCE}:
            line.update(
                prompt=prompt,
                model_result=r.model_output,
                decoded_result=decoded,
                error=r.error,
                error_type=r.error_type,
            )
        else:
            line.update(error=r.error, error_type=r.error_type, prompt=prompt)
            line["model_result_raw"] = r.model_output
            if decoded is not None:  # BFCL omits it when decoding failed
                line["model_result_decoded"] = decoded
            line["possible_answer"] = case.possible_answer if case is not None else None
        lines.append(line)
    return lines


def write_score_files(
    results: Sequence[CaseResult],
    directory: Path,
    *,
    model_name: str,
    cases: Mapping[str, TestCase] | None = None,
) -> list[Path]:
    """Write `<directory>/<model>/<group>/BFCL_v4_<category>_score.json` per suite."""
    model_dir = directory / model_folder(model_name)
    grouped: dict[Path, list[CaseResult]] = defaultdict(list)
    for result in results:
        name = f"{VERSION_PREFIX}_{result.category}_score.json"
        grouped[_inside(model_dir / _suite_dir(result) / name, directory)].append(result)
    written: list[Path] = []
    for path, rows in grouped.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = score_file_lines(
            rows, model_name=model_name, category=rows[0].category, cases=cases
        )
        path.write_text(_dump(lines), encoding="utf-8")
        written.append(path)
    return written


def read_score_file(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Header and failing entries of a BFCL score file (ours or the official tool's)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read score file: {exc.strerror}", file=str(path)) from None
    rows: list[dict[str, Any]] = [row for _, row in read_jsonl(text, file=str(path))]
    if not rows or "accuracy" not in rows[0]:
        raise InputError("first line must hold 'accuracy'", file=str(path), line=1)
    return rows[0], rows[1:]


def write_leaderboard_files(
    board: Leaderboard,
    directory: Path,
    *,
    model_name: str,
    latency: LatencyStats | None = None,
    format_sensitivity: FormatSensitivity | None = None,
) -> list[Path]:
    """bfcl-eval's leaderboard CSVs for one model (`data_overall.csv`, `data_non_live.csv`,
    `data_live.csv`, `data_multi_turn.csv`, `data_agentic.csv`,
    `data_format_sensitivity.csv`), laid out as it writes them:
    a rank column, percentages with two decimals, `N/A` for what did not run, no newline
    after the last row. Cost, link, organisation and licence are not known here: `N/A` and
    empty, as bfcl-eval writes for a model without them."""
    na = "N/A"
    lat = [str(latency.mean), str(latency.std), str(latency.p95)] if latency else [na, na, na]
    overall_cells = dict(board.overall)
    first = overall_cells.pop(OVERALL_ACC)
    from bfcl_action.checker.variants import PROMPT_CONFIGS  # the checker loads on use

    figures = format_sensitivity
    spread = [str(figures.max_delta), str(figures.std)] if figures else [na, na]
    per_config = {
        key: figures.configs[key].accuracy if figures and key in figures.configs else None
        for key in (c.key for c in PROMPT_CONFIGS)
    }
    tables = {
        "data_overall.csv": (
            [
                "Rank",
                OVERALL_ACC,
                "Model",
                "Model Link",
                "Total Cost ($)",
                "Latency Mean (s)",
                "Latency Standard Deviation (s)",
                "Latency 95th Percentile (s)",
                *overall_cells,
                "Format Sensitivity Max Delta",
                "Format Sensitivity Standard Deviation",
                "Organization",
                "License",
            ],
            [
                "1",
                cell_text(first),
                model_name,
                "",
                na,
                *lat,
                *(cell_text(v) for v in overall_cells.values()),
                *spread,
                "",
                "",
            ],
        ),
        "data_format_sensitivity.csv": (
            [
                "Rank",
                "Model",
                "Format Sensitivity Max Delta",
                "Format Sensitivity Standard Deviation",
                *(f"Config {key}" for key in per_config),
            ],
            ["1", model_name, *spread, *(cell_text(v) for v in per_config.values())],
        ),
        "data_non_live.csv": _table_row(board.non_live, model_name),
        "data_live.csv": _table_row(board.live, model_name),
        "data_multi_turn.csv": _table_row(board.multi_turn, model_name),
        "data_agentic.csv": _table_row(board.agentic, model_name),
    }
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, (header, row) in tables.items():
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows([header, row])
        path = directory / name
        path.write_text(buffer.getvalue().removesuffix("\n"), encoding="utf-8")
        written.append(path)
    return written


def _table_row(cells: Mapping[str, float | None], model_name: str) -> tuple[list[str], list[str]]:
    return (
        ["Rank", "Model", *cells],
        ["1", model_name, *(cell_text(v) for v in cells.values())],
    )

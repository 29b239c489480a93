"""`--model replay:PATH`: answers recorded earlier instead of a live model.

PATH is a BFCL result file (`BFCL_v4_<category>_result.json`, one `{"id", "result"}` per
line), a directory searched for such files, or a run report JSON written by `bfcl-action
run --output`. The demo and the tests use it to score without an API key or a network.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bfcl_action.core.records import Mode, TestCase
from bfcl_action.model.naming import NameMap
from bfcl_action.model.types import PermanentError, RequestStats
from bfcl_action.results.results_io import RESULT_FILE_RE, read_result_file, read_results
from bfcl_action.results.run_reports import report_from_data
from bfcl_action.runner.answer import ModelAnswer

_MISSING = object()


def _read_report(path: Path, data: dict[str, Any]) -> tuple[dict[str, Any], Mode]:
    report = report_from_data(data, path)
    answers = {r.id: r.model_output for r in report.results if r.infra_error is None}
    return answers, report.mode


def load_recorded_answers(path: str | Path) -> tuple[dict[str, Any], Mode | None]:
    """Recorded outputs by case id, and the mode if the source says which it was."""
    root = Path(path)
    if root.is_file() and root.suffix == ".json" and not RESULT_FILE_RE.match(root.name):
        try:
            whole = json.loads(root.read_text(encoding="utf-8"))
        except (ValueError, RecursionError):
            whole = None
        if isinstance(whole, dict) and "results" in whole and "id" not in whole:
            return _read_report(root, whole)
    if root.is_file() and not RESULT_FILE_RE.match(root.name):
        # Any JSON Lines file of {"id", "result"}: the case ids alone link answers to cases.
        entries = read_result_file(root, category="replay")
    else:
        entries = read_results(root)
    return {entry.id: entry.result for entry in entries}, None


def restore_names(output: Any, names: NameMap) -> Any:
    """FC calls recorded under API-safe names (`math_factorial`, as BFCL's own OpenAI runs
    write them) get the offered name back (`math.factorial`); other outputs are unchanged."""
    if names.identity or not isinstance(output, list):
        return output
    restored: list[Any] = []
    for call in output:
        if isinstance(call, dict) and len(call) == 1:
            [(name, args)] = call.items()
            restored.append({names.original(str(name)): args})
        else:
            restored.append(call)
    return restored


class ReplayBackend:
    """Serves recorded answers; a case without one is an infrastructure error, not a failure."""

    def __init__(self, answers: dict[str, Any], *, mode: Mode, source: str) -> None:
        self.answers = answers
        self.mode = mode
        self.model = f"replay:{source}"
        self.stats = RequestStats()
        """Always zero: a replay sends no request."""

    @classmethod
    def from_path(cls, path: str, *, mode: Mode) -> ReplayBackend:
        answers, recorded_mode = load_recorded_answers(path)
        return cls(answers, mode=recorded_mode or mode, source=path)

    async def answer(self, case: TestCase, sample: int) -> ModelAnswer:
        output = self.answers.get(case.id, _MISSING)
        if output is _MISSING:
            raise PermanentError(f"no recorded answer for {case.id}")
        if self.mode is Mode.FC:
            output = restore_names(output, NameMap.for_names(f.name for f in case.functions))
        return ModelAnswer(output=output)

    async def aclose(self) -> None:
        pass

"""BFCL's multi-turn entries (`multi_turn_base`, `_miss_func`, `_miss_param`, `_long_context`).

An entry names its environments (`involved_classes`) instead of listing functions: the
function docs come from `multi_turn_func_doc/<file>.json` of the same release, joined here, so
a loaded case offers what BFCL offers. Answers are one list of call strings per turn, kept in
the case's `ground_truth` field (BFCL's name); `bfcl_action.multiturn` reads them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bfcl_action.core.categories import MULTI_TURN_OFFICIAL as MULTI_TURN_OFFICIAL
from bfcl_action.core.errors import DatasetError
from bfcl_action.core.records import TestCase
from bfcl_action.dataset.bfcl_format import _read, entry_file_name, parse_answers, read_jsonl

FUNC_DOC_FILES = {
    "GorillaFileSystem": "gorilla_file_system.json",
    "MathAPI": "math_api.json",
    "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json",
    "TicketAPI": "ticket_api.json",
    "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json",
    "VehicleControlAPI": "vehicle_control.json",
}
"""Environment class -> its function-doc file under `multi_turn_func_doc/`."""
LONG_CONTEXT = "multi_turn_long_context"


def _func_docs(
    root: Path, name: str, *, display: str, expected_sha256: dict[str, str] | None
) -> list[dict[str, Any]]:
    rel = f"multi_turn_func_doc/{FUNC_DOC_FILES[name]}"
    data = _read(root, rel, display=display, expected_sha256=expected_sha256)
    return [row for _, row in read_jsonl(data, file=f"{display}{rel}")]


def read_multi_turn(
    root: Path,
    category: str,
    *,
    dataset: str,
    suite: str,
    display: str,
    expected_sha256: dict[str, str] | None = None,
) -> list[TestCase]:
    """Load one multi-turn category with its ground truth and function docs."""
    name = entry_file_name(category)
    entries = read_jsonl(
        _read(root, name, display=display, expected_sha256=expected_sha256),
        file=f"{display}{name}",
    )
    answer_rel = f"possible_answer/{name}"
    answers = parse_answers(
        _read(root, answer_rel, display=display, expected_sha256=expected_sha256),
        file=f"{display}{answer_rel}",
    )
    docs: dict[str, list[dict[str, Any]]] = {}
    cases: list[TestCase] = []
    for line, row in entries:
        entry_id = str(row.get("id"))
        classes = row.get("involved_classes") or []
        functions: list[dict[str, Any]] = []
        for cls in classes:
            if cls not in FUNC_DOC_FILES:
                raise DatasetError(
                    f"entry {entry_id!r}: unknown environment {cls!r}",
                    file=f"{display}{name}",
                    line=line,
                    field="involved_classes",
                )
            if cls not in docs:
                docs[cls] = _func_docs(root, cls, display=display, expected_sha256=expected_sha256)
            functions.extend(json.loads(json.dumps(docs[cls])))
        if entry_id not in answers:
            raise DatasetError(
                f"entry {entry_id!r} has no possible answer", file=f"{display}{name}", line=line
            )
        fields = {k: v for k, v in row.items() if k != "function"}
        fields.update(
            functions=functions,
            ground_truth=answers[entry_id],
            long_context=category == LONG_CONTEXT,
            category=category,
            dataset=dataset,
            suite=suite,
            source={"file": f"{display}{name}", "line": line},
        )
        cases.append(TestCase.model_validate(fields))
    return cases

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

from pydantic import BaseModel, ConfigDict, Field

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
AGENTIC_FUNC_DOC_FILES = {"WebSearchAPI": "web_search.json"}
"""The agentic environments bfcl-action runs (host-side tools) -> their function-doc file.
Memory entries name `MemoryAPI`; their docs are the category's backend's
(`memory_<backend>.json`, `memory_doc_file`)."""
MEMORY_ENVIRONMENT = "MemoryAPI"


def memory_doc_file(category: str) -> str:
    """The function-doc file of a memory category's backend (`memory_kv` -> memory_kv.json)."""
    return f"{category}.json"


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


class AgenticData(BaseModel):
    """The environments an agentic entry names (read with `TestCase.metadata_as`)."""

    model_config = ConfigDict(extra="ignore")

    involved_classes: list[str] = Field(default_factory=list)


def with_agentic_functions(
    root: Path,
    cases: list[TestCase],
    *,
    display: str,
    expected_sha256: dict[str, str] | None = None,
) -> list[TestCase]:
    """Agentic entries (which list `involved_classes`, no functions) with the function docs of
    the environments bfcl-action runs (web search), as BFCL offers them. A release without the
    doc file leaves the entries as they are: scoring needs no docs, running says it lacks them."""
    docs: dict[str, list[dict[str, Any]]] = {}
    out: list[TestCase] = []
    for case in cases:
        functions: list[dict[str, Any]] = []
        for cls in case.metadata_as(AgenticData).involved_classes:
            doc = (
                memory_doc_file(case.category)
                if cls == MEMORY_ENVIRONMENT
                else AGENTIC_FUNC_DOC_FILES.get(cls, "")
            )
            rel = f"multi_turn_func_doc/{doc}"
            if not doc or not (root / rel).is_file():
                continue
            if cls not in docs:
                data = _read(root, rel, display=display, expected_sha256=expected_sha256)
                docs[cls] = [row for _, row in read_jsonl(data, file=f"{display}{rel}")]
            functions.extend(json.loads(json.dumps(docs[cls])))
        if functions and not case.functions:
            case = TestCase.model_validate({**case.model_dump(), "functions": functions})
        out.append(case)
    return out


def read_memory_prereqs(
    root: Path,
    folder: Path,
    category: str,
    scenario: str,
    *,
    dataset: str,
    display: str,
    expected_sha256: dict[str, str] | None,
    prereq_sha256: dict[str, str] | None,
) -> list[TestCase]:
    """One scenario's prerequisite conversations for a memory category, in file order (each
    continues the memory the one before it left), with the backend's function docs."""
    name = f"memory_{scenario}.json"
    if not (folder / name).is_file():
        raise DatasetError(f"no memory prerequisite conversations for scenario {scenario!r}")
    rows = read_jsonl(
        _read(folder, name, display=display, expected_sha256=prereq_sha256),
        file=f"{display}memory_prereq_conversation/{name}",
    )
    doc = f"multi_turn_func_doc/{memory_doc_file(category)}"
    data = _read(root, doc, display=display, expected_sha256=expected_sha256)
    functions = [row for _, row in read_jsonl(data, file=f"{display}{doc}")]
    cases = []
    for line, row in rows:
        fields = {k: v for k, v in row.items() if k not in {"function", "id"}}
        fields.update(
            id=str(row.get("id", "")).replace("memory", category, 1),
            functions=json.loads(json.dumps(functions)),
            category=category,
            dataset=dataset,
            suite=category,
            source={"file": f"{display}memory_prereq_conversation/{name}", "line": line},
        )
        cases.append(TestCase.model_validate(fields))
    return cases

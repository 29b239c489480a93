"""Own multi-turn cases: BFCL's multi-turn JSON Lines with environments named by the case.

Each line holds `id`, `question` (turns), `function` (a list of function docs, or the path of
a JSON file holding one, relative to the cases file), `involved_classes`, `environments`
(name -> `module:Class`, importable from the cases file's directory), `initial_config`,
`ground_truth` and optionally `missed_function`. See docs/multi-turn.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bfcl_action.core.errors import InputError
from bfcl_action.core.records import CASE_ID_PATTERN, TestCase
from bfcl_action.dataset.bfcl_format import read_jsonl
from bfcl_action.multiturn.conversation import conversation_of

OWN_CATEGORY = "own_multi_turn"
PATHS_FIELD = "environment_paths"
"""Extra field holding the import roots of a case's environments (absolute paths)."""


def load_conversation_cases(
    path: str | Path,
    *,
    suite: str = OWN_CATEGORY,
    environments: dict[str, str] | None = None,
) -> list[TestCase]:
    """Read and validate an own multi-turn cases file; raises `InputError` with file/line.

    `environments` (name -> `module:Class`, from `.bfcl.yml`) fills in what a case's own
    `environments` field does not name."""
    file = Path(path)
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read cases: {exc.strerror}", file=str(file)) from None
    docs_cache: dict[str, list[dict[str, Any]]] = {}
    cases: list[TestCase] = []
    for line, row in read_jsonl(data, file=str(file)):
        functions = row.get("function", [])
        if isinstance(functions, str):
            functions = _docs(file.parent / functions, docs_cache, file=str(file), line=line)
        case_id = row.get("id")
        if not isinstance(case_id, str) or not CASE_ID_PATTERN.fullmatch(case_id):
            raise InputError(
                f"expected a case id of letters, digits and _ . : @ -, found {case_id!r:.60}",
                file=str(file),
                line=line,
                field="id",
            )
        fields = {k: v for k, v in row.items() if k != "function"}
        own = fields.get("environments")
        fields["environments"] = {**(environments or {}), **(own if isinstance(own, dict) else {})}
        fields.update(
            functions=functions,
            category=OWN_CATEGORY,
            suite=suite,
            source={"file": str(file), "line": line},
        )
        fields[PATHS_FIELD] = [str(file.parent.resolve())]
        try:
            case = TestCase.model_validate(fields)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise InputError(first["msg"], file=str(file), line=line, field=where) from None
        conversation_of(case)
        cases.append(case)
    return cases


def _docs(
    path: Path, cache: dict[str, list[dict[str, Any]]], *, file: str, line: int
) -> list[dict[str, Any]]:
    key = str(path.resolve())
    if key not in cache:
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(
                f"cannot read function docs {path}: {exc}", file=file, line=line, field="function"
            ) from None
        if not isinstance(loaded, list):
            raise InputError(
                f"{path} must hold a list of function docs", file=file, line=line, field="function"
            )
        cache[key] = loaded
    return cache[key]

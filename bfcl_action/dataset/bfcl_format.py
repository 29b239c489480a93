"""Read BFCL's on-disk test format into `TestCase`s.

BFCL keeps one JSON object per line: `{"id", "question", "function"}` in the entry file and
`{"id", "ground_truth"}` in the possible-answer file of the same name. The official wheel
and our Live releases share this layout, so both loaders go through here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import ValidationError

from bfcl_action.core.categories import FORMAT_SENSITIVITY, get_category
from bfcl_action.core.errors import DatasetError
from bfcl_action.core.records import SourceLocation, TestCase
from bfcl_action.safety import jsonl

VERSION_PREFIX = "BFCL_v4"
"""File-name prefix of BFCL v4 data, result and score files."""


def entry_file_name(category: str) -> str:
    return f"{VERSION_PREFIX}_{category}.json"


def read_jsonl(data: bytes, *, file: str) -> list[tuple[int, dict[str, Any]]]:
    """`(line_number, object)` pairs of a BFCL data file (`bfcl_action.safety.jsonl`'s rules); a bad
    line is a `DatasetError`."""
    return jsonl.read_jsonl(data, file=file, error=DatasetError)


def parse_answers(data: bytes, *, file: str) -> dict[str, list[Any]]:
    """Possible answers by entry id."""
    answers: dict[str, list[Any]] = {}
    for number, row in read_jsonl(data, file=file):
        entry_id = row.get("id")
        truth = row.get("ground_truth")
        if not isinstance(entry_id, str):
            raise DatasetError("missing string 'id'", file=file, line=number, field="id")
        if not isinstance(truth, list):
            raise DatasetError(
                f"expected a list, found {type(truth).__name__}",
                file=file,
                line=number,
                field="ground_truth",
            )
        answers[entry_id] = truth
    return answers


def parse_entries(
    data: bytes,
    *,
    category: str,
    file: str,
    answers: dict[str, list[Any]] | None,
    dataset: str,
    suite: str,
) -> list[TestCase]:
    """Turn one BFCL entry file into test cases, joining possible answers by id.

    `answers` is None for categories that have none (irrelevance, relevance); otherwise every
    entry must have one, since a case without an answer could never pass.
    """
    known = get_category(category)
    language = known.language
    cases: list[TestCase] = []
    for number, row in read_jsonl(data, file=file):
        entry_id = row.get("id")
        if not isinstance(entry_id, str):
            raise DatasetError("missing string 'id'", file=file, line=number, field="id")
        fields = {k: v for k, v in row.items() if k != "function"}
        fields["functions"] = row.get("function", [])
        if answers is not None:
            if entry_id not in answers:
                raise DatasetError(
                    f"entry {entry_id!r} has no possible answer", file=file, line=number
                )
            answer_field = "answer_texts" if known.agentic else "possible_answer"
            fields[answer_field] = answers[entry_id]
        if known.data_file and entry_id.startswith(known.data_file):
            # one shared file serves several categories: ids become the category's own
            fields["id"] = category + entry_id[len(known.data_file) :]
        fields.update(
            category=category,
            language=language,
            dataset=dataset,
            suite=suite,
            source={"file": file, "line": number},
        )
        try:
            cases.append(TestCase.model_validate(fields))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise DatasetError(
                f"entry {entry_id!r} does not match BFCL's format: {first['msg']}",
                file=file,
                line=number,
                field=where,
            ) from None
    return cases


class PoolEntry(NamedTuple):
    """One entry of a pool as read (not yet a `TestCase`): the compact form the derived suites
    read a whole dataset in. `suites.derive_irrelevance` validates only the questions it looks
    at and builds a case only for those it asks; `suites.distractor_functions` validates only
    the functions it keeps."""

    case_id: str
    question: Any
    """The entry's turns as read (a list of lists of message objects), or validated ones."""
    functions: list[Any]
    """The entry's function objects as read, or `FunctionDoc`s already validated."""
    file: str
    line: int
    source: SourceLocation | None = None
    """Where a case of this entry points: given for an entry read as a case; else `file` and
    `line` (none when `file` is empty)."""

    def location(self) -> SourceLocation | None:
        if self.source is not None or not self.file:
            return self.source
        return SourceLocation(file=self.file, line=self.line)


class PoolFunction(NamedTuple):
    """One function of a pool entry, as read (not yet a `FunctionDoc`): the compact form
    the distractor suite reads a whole dataset in (`suites.distractor_functions`), which
    validates only the functions it keeps instead of building a case for every entry."""

    case_id: str
    raw: Any
    """The function object of the entry file, or a `FunctionDoc` already validated."""
    file: str
    line: int


def entry_functions(entries: Sequence[PoolEntry]) -> list[PoolFunction]:
    """Every function of `entries`, in order, with its entry's id and place."""
    return [PoolFunction(e.case_id, fn, e.file, e.line) for e in entries for fn in e.functions]


def read_pool_entries(
    root: Path,
    category: str,
    *,
    display: str,
    expected_sha256: dict[str, str] | None = None,
) -> list[PoolEntry]:
    """Every entry of `<root>/BFCL_v4_<category>.json` in the compact pool form, with its id
    as `read_category` names it; the possible answers are not read. An entry without a string
    id, whose `question` is not a list of turns (lists), or whose `function` is not a list of
    named objects, is a `DatasetError`, as `read_category` makes it; the messages and the
    functions' schemas are validated by whoever keeps them."""
    known = get_category(category)
    name = entry_file_name(known.data_file or category)
    data = _read(root, name, display=display, expected_sha256=expected_sha256)
    file = f"{display}{name}"
    out: list[PoolEntry] = []
    for number, row in read_jsonl(data, file=file):
        entry_id = row.get("id")
        if not isinstance(entry_id, str):
            raise DatasetError("missing string 'id'", file=file, line=number, field="id")
        if known.data_file and entry_id.startswith(known.data_file):
            entry_id = category + entry_id[len(known.data_file) :]
        question = row.get("question")
        if not isinstance(question, list) or not all(isinstance(t, list) for t in question):
            raise DatasetError(
                f"entry {entry_id!r} does not match BFCL's format: expected a list of turns",
                file=file,
                line=number,
                field="question",
            )
        functions = row.get("function", [])
        if not isinstance(functions, list) or not all(
            isinstance(fn, dict) and isinstance(fn.get("name"), str) for fn in functions
        ):
            raise DatasetError(
                f"entry {entry_id!r} does not match BFCL's format: "
                "expected a list of functions with a name",
                file=file,
                line=number,
                field="functions",
            )
        out.append(PoolEntry(entry_id, question, functions, file, number))
    return out


def read_category(
    root: Path,
    category: str,
    *,
    dataset: str,
    suite: str,
    display: str,
    expected_sha256: dict[str, str] | None = None,
) -> list[TestCase]:
    """Load `<root>/BFCL_v4_<category>.json` and its `possible_answer/` twin if present.

    `display` prefixes file names in errors (e.g. `bfcl@2026.3.23:`) so a user sees which
    dataset a bad line came from. `expected_sha256` maps relative paths to digests that the
    bytes read must match (cache and release integrity).
    """
    name = entry_file_name(get_category(category).data_file or category)
    entry_bytes = _read(root, name, display=display, expected_sha256=expected_sha256)
    answer_rel = f"possible_answer/{name}"
    answers = None
    if (root / answer_rel).is_file():
        answer_bytes = _read(root, answer_rel, display=display, expected_sha256=expected_sha256)
        answers = parse_answers(answer_bytes, file=f"{display}{answer_rel}")
    return parse_entries(
        entry_bytes,
        category=category,
        file=f"{display}{name}",
        answers=answers,
        dataset=dataset,
        suite=suite,
    )


def read_format_sensitivity(
    root: Path,
    *,
    dataset: str,
    display: str,
    expected_sha256: dict[str, str] | None = None,
) -> list[TestCase]:
    """BFCL v4's format-sensitivity cases: the entries its id file names (per category, in
    the category's own order), each asked once per prompt configuration, numbered as
    bfcl-eval numbers them (`format_sensitivity_<n>:<config>:<entry id>`)."""
    from bfcl_action.checker.variants import PROMPT_CONFIGS, variant_id

    name = entry_file_name(FORMAT_SENSITIVITY)
    file = f"{display}{name}"
    try:
        wanted = json.loads(_read(root, name, display=display, expected_sha256=expected_sha256))
    except ValueError as exc:
        raise DatasetError(f"not JSON: {exc}", file=file) from None
    if not isinstance(wanted, dict) or not all(
        isinstance(ids, list) and all(isinstance(i, str) for i in ids) for ids in wanted.values()
    ):
        raise DatasetError("expected {category: [entry ids]}", file=file)
    cases: list[TestCase] = []
    for category, ids in wanted.items():
        if not ids:
            continue
        chosen = set(ids)
        entries = read_category(
            root,
            category,
            dataset=dataset,
            suite=category,
            display=display,
            expected_sha256=expected_sha256,
        )
        for entry in (e for e in entries if e.id in chosen):
            for config in PROMPT_CONFIGS:
                cases.append(
                    entry.model_copy(
                        update={
                            "id": variant_id(len(cases), config, entry.id),
                            "category": FORMAT_SENSITIVITY,
                            "suite": FORMAT_SENSITIVITY,
                        }
                    )
                )
    return cases


def _read(root: Path, rel: str, *, display: str, expected_sha256: dict[str, str] | None) -> bytes:
    path = root / rel
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DatasetError(f"cannot read data file: {exc.strerror}", file=str(path)) from None
    if expected_sha256 is not None and rel in expected_sha256:
        found = hashlib.sha256(data).hexdigest()
        if found != expected_sha256[rel]:
            raise DatasetError(
                f"{display}{rel}: sha256 {found} does not match the recorded "
                f"{expected_sha256[rel]}; the file changed after it was written",
                file=str(path),
            )
    return data


def entry_line(case: TestCase) -> dict[str, Any]:
    """A case in BFCL's entry form: `id`, `question`, `function` (plus extra fields kept)."""
    row: dict[str, Any] = {
        "id": case.id,
        "question": [[m.model_dump() for m in turn] for turn in case.question],
        "function": [f.model_dump(exclude={"source"}) for f in case.functions],
    }
    row.update(case.model_extra or {})
    return row


def write_category(
    directory: Path, category: str, cases: Sequence[TestCase], *, with_answers: bool
) -> dict[str, str]:
    """Write one category in BFCL's layout; returns relative path -> sha256 of each file.

    Output is deterministic (cases in the given order, one compact JSON object per line), so
    the same cases always give byte-identical files (what a release checksum needs).
    """
    name = entry_file_name(category)
    written = {name: _dump([entry_line(c) for c in cases])}
    if with_answers:
        answers = [{"id": c.id, "ground_truth": c.possible_answer} for c in cases]
        written[f"possible_answer/{name}"] = _dump(answers)
    digests: dict[str, str] = {}
    for rel, data in written.items():
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        digests[rel] = hashlib.sha256(data).hexdigest()
    return digests


def _dump(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")

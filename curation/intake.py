"""Intake: contributions from files, GitHub issue forms, the contributions folder, and BFCL.

Every source yields `Item`s (normalised) and `Drop`s (what could not even be parsed, with
the file and line or issue number), so the funnel accounts for each submission.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from bfcl_action.core.errors import BfclActionError, InputError
from bfcl_action.core.records import FunctionDoc, TestCase
from bfcl_action.safety.jsonl import numbered_lines
from bfcl_action.tools.source import plain_scalar
from curation.budget import BudgetExceeded, check_value, load_json
from curation.models import Contribution, Drop, Item, Origin
from curation.normalize import to_item
from curation.tools_bridge import parse_functions

BFCL_CONTRIBUTOR = "gorilla-llm/bfcl"


class Intake:
    """Accumulates items and drops from any number of sources."""

    def __init__(self) -> None:
        self.items: list[Item] = []
        self.drops: list[Drop] = []

    def add(self, raw: Any, origin: Origin) -> None:
        """Parse one raw contribution object; a problem becomes a drop naming the origin.

        Whatever goes wrong with one contribution (even an unexpected exception deep in a
        library) drops that contribution alone, so a hostile neighbour never costs a valid
        one its place in the release.
        """
        try:
            self._add(raw, origin)
        except Exception as exc:  # isolation: one item, one drop
            self.drops.append(
                Drop(
                    stage="intake",
                    reason="internal_error",
                    origin=origin,
                    detail=f"{type(exc).__name__} while parsing: {str(exc)[:200]}",
                )
            )

    def _add(self, raw: Any, origin: Origin) -> None:
        try:
            check_value(raw)
        except BudgetExceeded as exc:
            self.drops.append(
                Drop(stage="intake", reason=exc.reason, origin=origin, detail=exc.detail)
            )
            return
        try:
            contribution = Contribution.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "contribution"
            self.drops.append(
                Drop(
                    stage="intake",
                    reason="invalid_contribution",
                    origin=origin,
                    detail=f"{where}: {err['msg']}",
                )
            )
            return
        try:
            functions = parse_functions(contribution.functions, origin.ref)
        except BfclActionError as exc:
            self.drops.append(
                Drop(stage="intake", reason="invalid_functions", origin=origin, detail=str(exc))
            )
            return
        self.items.append(to_item(contribution, functions, origin))

    def add_file(self, path: Path, *, workers: int = 1) -> None:
        label = repo_relative(path)
        rows = [
            (raw, Origin(kind="file", ref=f"{label}:{line}"))
            for raw, line in read_contribution_file(path, self.drops, label)
        ]
        self.add_many(rows, workers=workers)

    def add_many(self, rows: list[tuple[Any, Origin]], *, workers: int = 1) -> None:
        """Parse many contributions, in processes when there are enough to pay for them.

        Parsing (schema validation of every function above all) is the one per-item cost
        that dominates a large build; results keep the input order, so the outcome is the
        same as parsing them one by one.
        """
        if workers <= 1 or len(rows) < PARALLEL_MIN_ROWS:
            for raw, origin in rows:
                self.add(raw, origin)
            return
        size = max(1, len(rows) // (workers * 4))
        chunks = [rows[i : i + size] for i in range(0, len(rows), size)]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for items, drops in pool.map(_parse_chunk, chunks):
                self.items.extend(items)
                self.drops.extend(drops)

    def add_cases(self, cases: Iterable[TestCase], *, source: str) -> None:
        """Official BFCL Live entries, imported as contributions under their upstream license."""
        for case in cases:
            self.items.append(
                Item(
                    origin=Origin(kind="bfcl", ref=case.id),
                    question=case.question,
                    functions=[FunctionDoc.model_validate(f.model_dump()) for f in case.functions],
                    possible_answer=case.possible_answer,
                    contributor=BFCL_CONTRIBUTOR,
                    license="Apache-2.0",
                    source=source,
                    requested_category=case.category,
                )
            )


PARALLEL_MIN_ROWS = 2_000


def repo_relative(path: Path) -> str:
    """The path as provenance records it: relative to the git checkout holding it (else to
    the working directory, else its bare name), so no runner path leaks into a release and a
    rebuild from another checkout path gives the same bytes."""
    resolved = path.resolve()
    for parent in resolved.parents:
        if (parent / ".git").exists():
            return resolved.relative_to(parent).as_posix()
    try:
        return resolved.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return resolved.name


def _parse_chunk(rows: list[tuple[Any, Origin]]) -> tuple[list[Item], list[Drop]]:
    part = Intake()
    for raw, origin in rows:
        part.add(raw, origin)
    return part.items, part.drops


def read_contribution_file(
    path: Path, drops: list[Drop], label: str | None = None
) -> Iterator[tuple[Any, int]]:
    """Raw contribution objects of a JSON, JSON Lines or YAML file with their line numbers.

    A file that cannot be read at all becomes one drop; a bad JSON Lines line becomes a drop
    for that line only, and the rest of the file is still read.
    """
    label = label or repo_relative(path)
    origin = Origin(kind="file", ref=label)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        drops.append(Drop(stage="intake", reason="unreadable", origin=origin, detail=str(exc)))
        return
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        for n, line in numbered_lines(text):
            where = Origin(kind="file", ref=f"{label}:{n}")
            try:
                yield load_json(str(line)), n
            except BudgetExceeded as exc:
                drops.append(
                    Drop(stage="intake", reason=exc.reason, origin=where, detail=exc.detail)
                )
            except InputError as exc:
                drops.append(
                    Drop(stage="intake", reason="invalid_json", origin=where, detail=exc.message)
                )
        return
    if suffix == ".json":
        yield from _json_array_rows(label, text, drops)
        return
    if suffix in {".yml", ".yaml"}:
        yield from _yaml_rows(label, text, drops)
        return
    drops.append(
        Drop(
            stage="intake",
            reason="unsupported_file",
            origin=origin,
            detail="contributions are .json, .jsonl, .yml or .yaml files",
        )
    )


def _yaml_rows(label: str, text: str, drops: list[Drop]) -> Iterator[tuple[Any, int]]:
    try:
        data = YAML(typ="rt").load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = mark.line + 1 if mark else 1
        drops.append(
            Drop(
                stage="intake",
                reason="invalid_yaml",
                origin=Origin(kind="file", ref=f"{label}:{at}"),
                detail=str(getattr(exc, "problem", exc)),
            )
        )
        return
    except (ValueError, RecursionError) as exc:
        drops.append(
            Drop(
                stage="intake",
                reason="invalid_yaml",
                origin=Origin(kind="file", ref=f"{label}:1"),
                detail=f"{type(exc).__name__}: {str(exc)[:200]}",
            )
        )
        return
    rows = list(enumerate(data)) if isinstance(data, list) else [(-1, data)]
    for i, row in rows:
        line = int(data.lc.item(i)[0]) + 1 if i >= 0 else 1
        try:
            plain = _plain(row)
        except BudgetExceeded as exc:
            where = Origin(kind="file", ref=f"{label}:{line}")
            drops.append(Drop(stage="intake", reason=exc.reason, origin=where, detail=exc.detail))
            continue
        except RecursionError:
            where = Origin(kind="file", ref=f"{label}:{line}")
            drops.append(
                Drop(stage="intake", reason="too_deep", origin=where, detail="nested too deep")
            )
            continue
        yield plain, line


def _json_array_rows(label: str, text: str, drops: list[Drop]) -> Iterator[tuple[Any, int]]:
    """Rows of a `.json` file (one object or an array of them), each with the line its
    object starts on, so a report points at the item and not at line 1 of the file."""
    origin = Origin(kind="file", ref=f"{label}:1")
    try:
        data = load_json(text, max_bytes=MAX_FILE_BYTES, max_nodes=MAX_FILE_NODES)
    except BudgetExceeded as exc:
        drops.append(Drop(stage="intake", reason=exc.reason, origin=origin, detail=exc.detail))
        return
    except InputError as exc:
        at = 1
        try:  # within budget, so safe to parse again for the position
            json.loads(text)
        except json.JSONDecodeError as err:
            at = err.lineno
        drops.append(
            Drop(
                stage="intake",
                reason="invalid_json",
                origin=Origin(kind="file", ref=f"{label}:{at}"),
                detail=exc.message,
            )
        )
        return
    if not isinstance(data, list):
        yield data, _first_line(text)
        return
    yield from zip(data, _array_item_lines(text), strict=False)


def _first_line(text: str) -> int:
    stripped = len(text) - len(text.lstrip())
    return text.count("\n", 0, stripped) + 1


def _array_item_lines(text: str) -> Iterator[int]:
    """The line on which each top-level element of a JSON array starts (raw_decode walk)."""
    decoder = json.JSONDecoder()
    i = text.index("[") + 1
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        if i >= len(text) or text[i] == "]":
            return
        yield text.count("\n", 0, i) + 1
        _, i = decoder.raw_decode(text, i)


MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_FILE_NODES = 50_000_000
"""A JSON array file holds many contributions; each is then checked on its own."""
MAX_YAML_NODES = 200_000
"""Nodes a YAML contribution file may expand to; an alias bomb stops here, not at OOM."""


def _plain(value: Any, budget: list[int] | None = None) -> Any:
    """ruamel's round-trip containers as plain dicts and lists, within a node budget (aliases
    share one node in ruamel but expand when copied, which is how a YAML bomb explodes)."""
    budget = budget if budget is not None else [MAX_YAML_NODES]
    budget[0] -= 1
    if budget[0] < 0:
        raise BudgetExceeded("too_large", f"YAML expands to more than {MAX_YAML_NODES} nodes")
    if isinstance(value, dict):
        return {str(k): _plain(v, budget) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, budget) for v in value]
    return plain_scalar(value)

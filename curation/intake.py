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

from bfcl_action.errors import BfclActionError
from bfcl_action.jsonl import scan_jsonl
from bfcl_action.models import FunctionDoc, TestCase
from bfcl_action.tools.source import plain_scalar
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
        """Parse one raw contribution object; a problem becomes a drop naming the origin."""
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
        rows = [
            (raw, Origin(kind="file", ref=f"{path}:{line}"))
            for raw, line in read_contribution_file(path, self.drops)
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


def _parse_chunk(rows: list[tuple[Any, Origin]]) -> tuple[list[Item], list[Drop]]:
    part = Intake()
    for raw, origin in rows:
        part.add(raw, origin)
    return part.items, part.drops


def read_contribution_file(path: Path, drops: list[Drop]) -> Iterator[tuple[Any, int]]:
    """Raw contribution objects of a JSON, JSON Lines or YAML file with their line numbers.

    A file that cannot be read at all becomes one drop; a bad JSON Lines line becomes a drop
    for that line only, and the rest of the file is still read.
    """
    origin = Origin(kind="file", ref=str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        drops.append(Drop(stage="intake", reason="unreadable", origin=origin, detail=str(exc)))
        return
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        for n, value, error, _ in scan_jsonl(text, objects=False):
            if error is None:
                yield value, n
                continue
            drops.append(
                Drop(
                    stage="intake",
                    reason="invalid_json",
                    origin=Origin(kind="file", ref=f"{path}:{n}"),
                    detail=error,
                )
            )
        return
    if suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            drops.append(
                Drop(
                    stage="intake",
                    reason="invalid_json",
                    origin=Origin(kind="file", ref=f"{path}:{exc.lineno}"),
                    detail=exc.msg,
                )
            )
            return
        rows = data if isinstance(data, list) else [data]
        for row in rows:
            yield row, 1
        return
    if suffix in {".yml", ".yaml"}:
        try:
            data = YAML(typ="rt").load(text)
        except YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = mark.line + 1 if mark else 1
            drops.append(
                Drop(
                    stage="intake",
                    reason="invalid_yaml",
                    origin=Origin(kind="file", ref=f"{path}:{at}"),
                    detail=str(getattr(exc, "problem", exc)),
                )
            )
            return
        if not isinstance(data, list):
            yield _plain(data), 1
            return
        for i, row in enumerate(data):
            yield _plain(row), int(data.lc.item(i)[0]) + 1  # type: ignore[attr-defined]
        return
    drops.append(
        Drop(
            stage="intake",
            reason="unsupported_file",
            origin=origin,
            detail="contributions are .json, .jsonl, .yml or .yaml files",
        )
    )


def _plain(value: Any) -> Any:
    """ruamel's round-trip containers as plain dicts and lists."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return plain_scalar(value)

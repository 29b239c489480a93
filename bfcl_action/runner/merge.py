"""Joining the shard reports of one run: same fingerprint, no overlap, no missing shard."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from bfcl_action.errors import InputError
from bfcl_action.models import RunReport
from bfcl_action.runner.verdicts import repeat_summary
from bfcl_action.scoring import build_report
from bfcl_action.select import parse_shard


def read_report(path: Path) -> RunReport:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read report: {exc.strerror}", file=str(path)) from None
    try:
        return RunReport.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"not a run report: {first['msg']}", file=str(path), field=where) from None


def _check_shards(named: Sequence[tuple[str, RunReport]]) -> None:
    shards = [(name, r.shard) for name, r in named if r.shard]
    if not shards:
        return
    if len(shards) != len(named):
        plain = [name for name, r in named if not r.shard]
        raise InputError(f"mixing shard reports with unsharded ones: {', '.join(plain)}")
    parsed = {name: parse_shard(spec) for name, spec in shards}
    counts = {n for _, n in parsed.values()}
    if len(counts) != 1:
        raise InputError(f"shards of different splits: {sorted(counts)} shard counts")
    count = counts.pop()
    seen: dict[int, str] = {}
    for name, (index, _) in parsed.items():
        if index in seen:
            raise InputError(f"shard {index}/{count} given twice: {seen[index]} and {name}")
        seen[index] = name
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in seen]
    if missing:
        raise InputError(f"missing shard(s) {', '.join(missing)} of {count}")


def merge_reports(named: Sequence[tuple[str, RunReport]]) -> RunReport:
    """One report from shard reports; every inconsistency is an `InputError` naming files."""
    if not named:
        raise InputError("no reports to merge")
    first_name, first = named[0]
    for name, report in named[1:]:
        if report.fingerprint != first.fingerprint:
            raise InputError(
                f"fingerprint {report.fingerprint} differs from {first.fingerprint} "
                f"({first_name}): model, mode, datasets or settings differ",
                file=name,
            )
    _check_shards(named)
    owner: dict[str, str] = {}
    results = []
    for name, report in named:
        for result in report.results:
            if result.id in owner:
                raise InputError(
                    f"case {result.id} appears in both {owner[result.id]} and {name}", file=name
                )
            owner[result.id] = name
            results.append(result)
    notes = list(
        dict.fromkeys(n for _, r in named for n in r.notes if not n.startswith("requests "))
    )
    merged = build_report(
        results,
        model=first.model,
        mode=first.mode,
        datasets=first.datasets,
        settings=first.settings,
        notes=notes,
    )
    extra, _ = repeat_summary(results)
    merged.summary.update(extra)
    return merged

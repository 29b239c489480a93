"""Run reports on disk: the one place that reads, writes, tells apart and merges them.

`bfcl-action run --output` writes a report (versioned JSON, `schema_version`); `compare`,
`merge`, the Action and `--model replay:` read it back. A baseline may instead be any text
holding a digest (a check-run summary, a PR comment), which `load_baseline` recognises. Every
problem is an `InputError` naming the file and, for a malformed report, the field.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bfcl_action.core.errors import InputError
from bfcl_action.core.records import RequestCounts, RunReport
from bfcl_action.results.digest import RunDigest, parse_digest
from bfcl_action.results.scoring import build_report, repeat_summary
from bfcl_action.safety.redact import redact
from bfcl_action.settings.select import parse_shard


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the run report: {exc.strerror}", file=str(path)) from None


def _invalid(exc: ValidationError, path: Path | str) -> InputError:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return InputError(f"not a bfcl-action run report: {first['msg']}", file=str(path), field=where)


def report_from_data(data: Any, source: Path | str) -> RunReport:
    """A report from already-parsed JSON (callers that sniffed the file first)."""
    try:
        return RunReport.model_validate(data)
    except ValidationError as exc:
        raise _invalid(exc, source) from None


def load_report(path: Path) -> RunReport:
    try:
        return RunReport.model_validate_json(_read(path))
    except ValidationError as exc:
        raise _invalid(exc, path) from None


def save_report(report: RunReport, path: Path) -> None:
    """Write `report` as indented JSON, creating the folder; `load_report` reads it back.
    Every known secret is redacted first (`bfcl_action.safety.redact`)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(redact(report.model_dump_json(indent=1)) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write the run report: {exc.strerror}", file=str(path)) from None


def load_baseline(path: Path) -> RunReport | RunDigest:
    """A run report JSON, or any text (check-run summary, comment) holding a digest."""
    text = _read(path)
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", file=str(path), line=exc.lineno) from None
        if isinstance(data, dict) and "schema_version" in data:
            return report_from_data(data, path)
    return parse_digest(text, source=str(path))


def load_reports(paths: Sequence[Path]) -> RunReport:
    """One report, or the merge of several shard reports of one run."""
    if len(paths) == 1:
        return load_report(paths[0])
    return merge_reports([(str(p), load_report(p)) for p in paths])


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
    """One report from shard reports (same fingerprint, no overlap, no missing shard);
    every inconsistency is an `InputError` naming files."""
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
    merged.label = first.label
    merged.requests = sum_requests([r.requests for _, r in named])
    return merged


def load_labelled_reports(paths: Sequence[Path]) -> dict[str, RunReport]:
    """The reports of a model matrix by label (`RunReport.label`); the shards of one label
    are merged (`merge_reports`)."""
    groups: dict[str, list[tuple[str, RunReport]]] = {}
    for path in paths:
        report = load_report(path)
        groups.setdefault(report.label, []).append((str(path), report))
    return {
        label: parts[0][1] if len(parts) == 1 else merge_reports(parts)
        for label, parts in groups.items()
    }


def sum_requests(parts: Sequence[RequestCounts | None]) -> RequestCounts | None:
    """The request counts of several shards as one run's (None when no shard recorded any)."""
    known = [p for p in parts if p is not None]
    if not known:
        return None
    total = RequestCounts(cache=known[0].cache)
    for part in known:
        total.asked += part.asked
        total.reused += part.reused
        total.shared += part.shared
        total.retries += part.retries
        for label, n in part.served_fresh.items():
            total.served_fresh[label] = total.served_fresh.get(label, 0) + n
        for label, n in part.served_cached.items():
            total.served_cached[label] = total.served_cached.get(label, 0) + n
    return total


__all__ = [
    "load_baseline",
    "load_labelled_reports",
    "load_report",
    "load_reports",
    "merge_reports",
    "report_from_data",
    "save_report",
]

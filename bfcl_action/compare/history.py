"""The score history of scheduled runs: one JSON line per run, appended, never rewritten.

Each line (`HistoryRecord`) holds the run's per-suite counts, its verdict and its digest, so
the file alone can draw the trend chart and, when no check run is found, serve as the
baseline of the next run. Writes are atomic (a temporary file in the same directory, fsync,
`os.replace`): a run that fails or is killed leaves either the old file or the new one, never
half a line. A damaged line (e.g. edited by hand) is skipped and reported, not fatal.

Where the file lives between runs is the caller's choice: a workflow artifact (the action
writes it into its output directory; the workflow uploads it and downloads the previous
one), or a data branch of the repository (`git_files.BranchStore`, plain git against the
checkout). Pure: the chart is drawn by `report.charts.history_chart`.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from bfcl_action.core.errors import BfclActionError
from bfcl_action.core.records import RunReport
from bfcl_action.results.digest import RunDigest, SuiteDigest, digest_of, encode_digest
from bfcl_action.safety.jsonl import scan_jsonl

HISTORY_SCHEMA_VERSION = 1


class SuiteEntry(BaseModel):
    category: str
    correct: int
    total: int
    infra_errors: int = 0

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.total if self.total else None


class HistoryRecord(BaseModel):
    """One scheduled run as the history keeps it."""

    schema_version: int = HISTORY_SCHEMA_VERSION
    created_at: str = ""
    check_name: str = "bfcl"
    run_id: str = ""
    sha: str = ""
    event: str = ""
    model: str = ""
    mode: str = ""
    datasets: list[str] = Field(default_factory=list)
    fingerprint: str = ""
    suites: dict[str, SuiteEntry] = Field(default_factory=dict)
    verdict: str = ""
    alert: str = ""
    """What the run did to the alert issue: `opened`, `updated`, `closed` or empty."""
    digest: str = ""
    """The run's digest text (`bfcl_action.results.digest`), a baseline when no check run is
    found."""

    @property
    def overall(self) -> SuiteEntry:
        return SuiteEntry(
            category="overall",
            correct=sum(s.correct for s in self.suites.values()),
            total=sum(s.total for s in self.suites.values()),
            infra_errors=sum(s.infra_errors for s in self.suites.values()),
        )

    def as_digest(self) -> RunDigest:
        """Counts-only digest (what the history chart draws)."""
        return RunDigest(
            created_at=self.created_at,
            model=self.model,
            datasets=self.datasets,
            fingerprint=self.fingerprint,
            suites={
                k: SuiteDigest(
                    category=v.category,
                    ids="",
                    correct=v.correct,
                    total=v.total,
                    infra_errors=v.infra_errors,
                )
                for k, v in self.suites.items()
            },
        )


def record_of(
    report: RunReport,
    *,
    check_name: str,
    run_id: str = "",
    sha: str = "",
    event: str = "",
    verdict: str = "",
    alert: str = "",
) -> HistoryRecord:
    """The history line of a run (pure)."""
    digest = digest_of(report)
    return HistoryRecord(
        created_at=report.created_at,
        check_name=check_name,
        run_id=run_id,
        sha=sha,
        event=event,
        model=report.model,
        mode=str(report.mode),
        datasets=list(report.datasets),
        fingerprint=report.fingerprint,
        suites={
            label: SuiteEntry(
                category=s.category,
                correct=s.correct,
                total=s.total,
                infra_errors=s.infra_errors,
            )
            for label, s in digest.suites.items()
        },
        verdict=verdict,
        alert=alert,
        digest=encode_digest(digest),
    )


def parse_history(text: str) -> tuple[list[HistoryRecord], list[str]]:
    """Records of a JSON Lines text, oldest first, and a note per line that was skipped."""
    records: list[HistoryRecord] = []
    skipped: list[str] = []
    for number, value, error, _ in scan_jsonl(text):
        if error is None:
            try:
                records.append(HistoryRecord.model_validate(value))
                continue
            except ValidationError as exc:
                error = exc.errors()[0]["msg"]
        skipped.append(f"history line {number} skipped: {error}")
    return records, skipped


def read_history(path: Path) -> tuple[list[HistoryRecord], list[str]]:
    """The records in `path` (none when it does not exist)."""
    if not path.is_file():
        return [], []
    return parse_history(path.read_text(encoding="utf-8"))


def append_line(text: str, record: HistoryRecord) -> str:
    """`text` with `record` appended as one JSON line (a missing final newline is added)."""
    if text and not text.endswith("\n"):
        text += "\n"
    return text + record.model_dump_json() + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` in one step: readers and crashes see old or new, not half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def append_history(path: Path, record: HistoryRecord) -> None:
    """Append one record to the file at `path`, atomically."""
    existing = path.read_text(encoding="utf-8") if path.is_file() else ""
    write_atomic(path, append_line(existing, record))


def last_digest(records: Sequence[HistoryRecord], *check_names: str) -> RunDigest | None:
    """The digest of the newest record of one of `check_names` that carries one (a check
    renamed across an upgrade keeps its earlier records under the old name)."""
    from bfcl_action.results.digest import parse_digest

    for record in reversed(records):
        if record.check_name in check_names and record.digest:
            try:
                return parse_digest(record.digest, source="history")
            except BfclActionError:
                continue
    return None


def _date(record: HistoryRecord) -> str:
    return record.created_at[:10] or "?"


def chart_label(record: HistoryRecord) -> str:
    """A chart tick for one run: its date over its short sha (else its run id), so runs of
    one day stay apart."""
    date = _date(record)
    below = record.sha[:7] or (f"run {record.run_id}" if record.run_id else "")
    return f"{date}\n{below}" if below else date


def trend_table(records: Sequence[HistoryRecord], *, last: int = 8) -> str:
    """A Markdown table of the newest runs (overall and per suite), newest first."""
    from bfcl_action.safety.escape import md_code, md_inline

    shown = list(records)[-last:][::-1]
    if not shown:
        return "_No history yet._\n"
    suites = sorted({name for r in shown for name in r.suites})

    def cell(entry: SuiteEntry | None) -> str:
        if entry is None or entry.accuracy is None:
            return "–"
        return f"{entry.accuracy * 100:.1f}%"

    header = "| run | overall | " + " | ".join(md_inline(s, 40) for s in suites) + " |"
    rule = "|---|---:|" + "---:|" * len(suites)
    rows = [
        f"| {md_inline(_date(r))} {md_code(r.sha[:7], in_table=True)} | {cell(r.overall)} | "
        + " | ".join(cell(r.suites.get(s)) for s in suites)
        + " |"
        for r in shown
    ]
    return "\n".join([header, rule, *rows]) + "\n"

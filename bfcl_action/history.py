"""The score history of scheduled runs: one JSON line per run, appended, never rewritten.

Each line (`HistoryRecord`) holds the run's per-suite counts, its verdict and its digest, so
the file alone can draw the trend chart and, when no check run is found, serve as the
baseline of the next run. Writes are atomic (a temporary file in the same directory, fsync,
`os.replace`): a run that fails or is killed leaves either the old file or the new one, never
half a line. A damaged line (e.g. edited by hand) is skipped and reported, not fatal.

Where the file lives between runs is the caller's choice: a workflow artifact (the action
writes it into its output directory; the workflow uploads it and downloads the previous
one), or a data branch of the repository (`BranchStore`, plain git against the checkout).
"""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from bfcl_action.digest import RunDigest, SuiteDigest, digest_of, encode_digest
from bfcl_action.errors import BfclActionError
from bfcl_action.jsonl import scan_jsonl
from bfcl_action.models import RunReport

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
    """The run's digest text (`bfcl_action.digest`), a baseline when no check run is found."""

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
    from bfcl_action.digest import parse_digest
    from bfcl_action.errors import BfclActionError

    for record in reversed(records):
        if record.check_name in check_names and record.digest:
            try:
                return parse_digest(record.digest, source="history")
            except BfclActionError:
                continue
    return None


def _date(record: HistoryRecord) -> str:
    return record.created_at[:10] or "?"


def _label(record: HistoryRecord) -> str:
    """A chart tick for one run: its date over its short sha (else its run id), so runs of
    one day stay apart."""
    date = _date(record)
    below = record.sha[:7] or (f"run {record.run_id}" if record.run_id else "")
    return f"{date}\n{below}" if below else date


def history_svg(records: Sequence[HistoryRecord], *, title: str, last: int = 52) -> str:
    """The trend chart of the newest `last` records (`bfcl_action.report`'s history chart)."""
    from bfcl_action.report.charts import render_history_svg

    shown = list(records)[-last:]
    return render_history_svg(
        [r.as_digest() for r in shown], labels=[_label(r) for r in shown], title=title
    )


def trend_table(records: Sequence[HistoryRecord], *, last: int = 8) -> str:
    """A Markdown table of the newest runs (overall and per suite), newest first."""
    from bfcl_action.escape import md_code, md_inline

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


# ------------------------------------------------------------------------------ data branch
BOT_NAME = "github-actions[bot]"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"


class BranchStore:
    """Files on a data branch of the checkout's `origin`, read and committed with git plumbing.

    Nothing in the user's working tree, index or branches is touched: the branch is fetched
    into a private ref, commits are built in a temporary index, and pushed by sha. A push
    that loses a race (another run pushed first) is retried on the new tip, so no line is
    lost. The checkout's credentials are used (actions/checkout keeps them for `git push`;
    the job needs `contents: write`).
    """

    def __init__(self, checkout: Path, branch: str, *, remote: str = "origin") -> None:
        import git

        self.repo = git.Repo(checkout, search_parent_directories=True)
        self.branch = branch
        self.remote = remote
        self.ref = f"refs/bfcl-action/{branch}"

    def fetch(self) -> str | None:
        """Fetch the branch; its tip sha, or None when the branch does not exist yet."""
        import git

        try:
            self.repo.git.fetch(
                "--quiet", "--no-tags", self.remote, f"+refs/heads/{self.branch}:{self.ref}"
            )
        except git.GitCommandError as exc:
            if "couldn't find remote ref" in str(exc) or "could not find remote ref" in str(exc):
                return None
            raise
        return str(self.repo.git.rev_parse(self.ref))

    def read(self, tip: str | None, path: str) -> str:
        import git

        if tip is None:
            return ""
        try:
            return str(self.repo.git.show(f"{tip}:{path}", strip_newline_in_stdout=False))
        except git.GitCommandError:
            return ""

    def commit(self, parent: str | None, files: dict[str, str], message: str) -> str:
        """A commit of `files` over `parent`'s tree (built in a throwaway index)."""
        with tempfile.TemporaryDirectory(prefix="bfcl-history-") as tmp:
            env = {
                "GIT_INDEX_FILE": str(Path(tmp) / "index"),
                "GIT_AUTHOR_NAME": BOT_NAME,
                "GIT_AUTHOR_EMAIL": BOT_EMAIL,
                "GIT_COMMITTER_NAME": BOT_NAME,
                "GIT_COMMITTER_EMAIL": BOT_EMAIL,
            }
            g = self.repo.git
            if parent is None:
                g.read_tree("--empty", env=env)
            else:
                g.read_tree(parent, env=env)
            for number, (path, text) in enumerate(sorted(files.items())):
                blob_file = Path(tmp) / f"blob{number}"
                blob_file.write_text(text, encoding="utf-8", newline="\n")
                blob = g.hash_object("-w", str(blob_file))
                g.update_index("--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
            tree = g.write_tree(env=env)
            args = [tree, "-m", message] + (["-p", parent] if parent else [])
            return str(g.commit_tree(*args, env=env))

    def push(self, sha: str) -> bool:
        """Push `sha` as the branch; False when the branch moved meanwhile (not a fast-forward)."""
        import git

        try:
            self.repo.git.push("--quiet", self.remote, f"{sha}:refs/heads/{self.branch}")
        except git.GitCommandError as exc:
            text = str(exc)
            if "non-fast-forward" in text or "rejected" in text or "fetch first" in text:
                return False
            raise
        return True

    def update(
        self, build: Callable[[Callable[[str], str]], dict[str, str]], message: str, tries: int = 3
    ) -> str:
        """Commit what `build(read)` returns over the branch tip and push; returns the commit.

        `build` gets a reader of the tip's files and is called again after a lost race.
        """
        for _ in range(tries):
            tip = self.fetch()
            reader: Callable[[str], str] = functools.partial(self.read, tip)
            files = build(reader)
            sha = self.commit(tip, files, message)
            if self.push(sha):
                return sha
        raise BfclActionError(
            f"could not push to the `{self.branch}` branch: it kept moving ({tries} attempts)"
        )

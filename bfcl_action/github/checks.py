"""The check run: verdict, summary carrying the run digest, annotations in batches of 50.

The check run on a default-branch commit is the baseline store: a later PR reads the digest
back from the check run on its merge-base, so no artifact or branch is needed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Literal, cast

from github.CheckRun import CheckRun
from github.Repository import Repository
from pydantic import BaseModel

from bfcl_action.report import github_limits as limits
from bfcl_action.results.digest import MARKER as DIGEST_MARKER

SUMMARY_LIMIT = limits.CHECK_OUTPUT.size
"""UTF-8 bytes (not characters) GitHub accepts in a check run's `output.summary`."""
ANNOTATION_BATCH = limits.ANNOTATIONS_PER_REQUEST
SUMMARY_CUT_NOTE = "\n\n_… truncated to fit GitHub's check-run size limit; see the job summary._"
MESSAGE_CUT_NOTE = "\n… (truncated)"

Conclusion = Literal["success", "failure", "neutral", "skipped", "action_required", "cancelled"]


class Annotation(BaseModel):
    """A check-run annotation at a tool definition (file and line of the repo)."""

    path: str
    start_line: int = 1
    end_line: int | None = None
    level: Literal["notice", "warning", "failure"] = "warning"
    title: str = ""
    message: str

    def to_api(self) -> dict[str, object]:
        data: dict[str, object] = {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line or self.start_line,
            "annotation_level": self.level,
            "message": limits.ANNOTATION_MESSAGE.fit(self.message, MESSAGE_CUT_NOTE),
        }
        if self.title:
            data["title"] = limits.ANNOTATION_TITLE.fit(self.title, "…")
        return data


def summary_with_digest(markdown: str, digest: str, limit: int = SUMMARY_LIMIT) -> str:
    """Summary markdown plus the digest block within `limit` UTF-8 bytes; the markdown is cut
    (on a character boundary, with a note), never the digest."""
    block = "\n\n" + digest if digest else ""
    room = limit - limits.utf8_len(block)
    if room < 0:
        raise ValueError(
            f"the digest alone is {limits.utf8_len(block)} bytes, over the {limit}-byte limit"
        )
    return limits.fit_bytes(markdown, room, SUMMARY_CUT_NOTE) + block


def check_summary_room(digest: str, reserve: int = 2_048) -> int:
    """UTF-8 bytes left for the rendered summary next to `digest` (and the short markers a
    caller may add, such as the scheduled marker, within `reserve`)."""
    return SUMMARY_LIMIT - limits.utf8_len("\n\n" + digest) - reserve


def batches(items: Sequence[Annotation], size: int = ANNOTATION_BATCH) -> list[list[Annotation]]:
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def publish_check_run(
    repo: Repository,
    head_sha: str,
    name: str,
    *,
    conclusion: Conclusion,
    title: str,
    summary: str,
    annotations: Sequence[Annotation] = (),
    details_url: str | None = None,
) -> CheckRun:
    """Create a completed check run; annotations beyond the first 50 go in follow-up updates."""
    groups = batches(annotations) or [[]]
    output: dict[str, object] = {
        "title": limits.CHECK_TITLE.fit(title, "…"),
        "summary": limits.CHECK_OUTPUT.fit(summary, SUMMARY_CUT_NOTE),
    }
    first = {**output, "annotations": [a.to_api() for a in groups[0]]}
    kwargs: dict[str, Any] = {"details_url": details_url} if details_url else {}
    run = repo.create_check_run(
        name=name,
        head_sha=head_sha,
        status="completed",
        conclusion=conclusion,
        output=cast(Any, first),
        **kwargs,
    )
    for group in groups[1:]:
        run.edit(output=cast(Any, {**output, "annotations": [a.to_api() for a in group]}))
    return run


def newest_with_markers(runs: Iterable[CheckRun], *markers: str) -> CheckRun | None:
    """The completed run whose summary holds every marker and that completed last.

    GitHub Actions creates a check run for every job, named after the job; when the job and
    this action's check share a name, the job's run (no digest, completed later) is the one
    `filter=latest` returns. So callers list with `filter=all`, and the choice here is by
    `completed_at`, never by list order (which GitHub does not promise).
    """
    best: tuple[datetime, int, CheckRun] | None = None
    for run in runs:
        if run.status != "completed" or run.completed_at is None:
            continue
        summary = run.output.summary if run.output else None
        if not summary or not all(m in summary for m in markers):
            continue
        key = (run.completed_at, run.id, run)
        if best is None or key[:2] > best[:2]:
            best = key
    return best[2] if best is not None else None


PREVIOUS_DEFAULT_NAMES: dict[str, tuple[str, ...]] = {"bfcl-action": ("bfcl",)}
"""Default check names of earlier versions, per current default. A baseline stored under
the old default (before the rename that keeps it apart from a job named `bfcl`) is still
found, so upgrading does not lose one PR's or one week's comparison. The digest marker, not
the name, tells our run from the job's own."""


def completed_runs(repo: Repository, sha: str, name: str) -> Iterable[CheckRun]:
    """Every completed check run `name` on `sha`, all attempts (`filter=all`), and those
    under an earlier default name of `name` (`PREVIOUS_DEFAULT_NAMES`)."""
    commit = repo.get_commit(sha)
    for candidate in (name, *PREVIOUS_DEFAULT_NAMES.get(name, ())):
        yield from commit.get_check_runs(check_name=candidate, status="completed", filter="all")


def find_digest_text(repo: Repository, sha: str, name: str) -> str | None:
    """The summary of the newest completed check run `name` on `sha` that holds a digest."""
    run = newest_with_markers(completed_runs(repo, sha, name), DIGEST_MARKER)
    return str(run.output.summary) if run is not None else None

"""The check run: verdict, summary carrying the run digest, annotations in batches of 50.

The check run on a default-branch commit is the baseline store: a later PR reads the digest
back from the check run on its merge-base, so no artifact or branch is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, cast

from github.CheckRun import CheckRun
from github.Repository import Repository
from pydantic import BaseModel

from bfcl_action.digest import MARKER as DIGEST_MARKER

SUMMARY_LIMIT = 65_535
ANNOTATION_BATCH = 50

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
            "message": self.message[:64_000],
        }
        if self.title:
            data["title"] = self.title[:255]
        return data


def summary_with_digest(markdown: str, digest: str, limit: int = SUMMARY_LIMIT) -> str:
    """Summary markdown plus the digest block; the markdown is cut, never the digest."""
    block = "\n\n" + digest if digest else ""
    room = limit - len(block)
    if room < 0:
        raise ValueError(f"the digest alone is {len(block)} chars, over the {limit} limit")
    if len(markdown) > room:
        note = "\n\n_… truncated; see the job summary._"
        markdown = markdown[: max(0, room - len(note))] + note
    return markdown + block


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
    output: dict[str, object] = {"title": title[:255], "summary": summary}
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


def find_digest_text(repo: Repository, sha: str, name: str) -> str | None:
    """The summary of the newest completed check run `name` on `sha` that holds a digest."""
    runs = repo.get_commit(sha).get_check_runs(check_name=name, status="completed")
    for run in runs:
        summary = run.output.summary if run.output else None
        if summary and DIGEST_MARKER in summary:
            return str(summary)
    return None

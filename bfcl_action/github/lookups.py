"""The GitHub reads a run needs that do not depend on its answers, made while the model
answers, so a pull-request check waits for the model or for GitHub, not for both.

`start_lookups` starts one background thread before the model calls; it makes the reads in
the order the flow used to make them after the calls: the repository, the merge-base and
the digest of its check run (the baseline), the comment author and the sticky comment.
Each read keeps its result or its exception; `join` waits for them after the model calls,
and the flow then reads each through `attempt` as before, so a failed read is the same
warning and the same problem, reported at the same point of the flow. A read that needs
one that failed is not made (the flow never asks for it). The flow writes to GitHub only
after `join`, so the background thread and the flow never use the client at once.

`close` drops the reads not yet begun and waits for the one in flight (bounded by the
client's timeout): a failed evaluation leaves no thread running behind it.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, TypeVar

from github import Github
from github.IssueComment import IssueComment
from github.Repository import Repository

from bfcl_action.github.comment import find_sticky_comment, resolve_author
from bfcl_action.github.context import ActionContext, CommentMode, PullRequestInfo
from bfcl_action.github.publish import merge_base_digest

T = TypeVar("T")


class _Skipped(Exception):
    """A read not made because one it needs failed (never shown: the flow does not ask)."""


@dataclass
class Lookups:
    """Futures of the reads `start_lookups` began; `None` for a read this run does not need."""

    repo: Future[Repository]
    baseline: Future[tuple[str, str | None]] | None
    """The merge-base sha and the summary of its check run with a digest (`baseline:` auto
    or check-run)."""
    author: Future[str] | None
    """The login comments are posted as (`comment` not off)."""
    comment: Future[IssueComment | None] | None
    """The sticky comment found before the model calls (`comment` not off)."""
    _pool: ThreadPoolExecutor

    def join(self) -> None:
        """Wait until every read is done (each holds its result or exception)."""
        reads: list[Future[Any] | None] = [self.repo, self.baseline, self.author, self.comment]
        wait([read for read in reads if read is not None])

    def close(self) -> None:
        """Drop the reads not begun, wait for the one in flight; idempotent."""
        self._pool.shutdown(wait=True, cancel_futures=True)


def start_lookups(ctx: ActionContext, gh: Github, pr: PullRequestInfo | None) -> Lookups:
    """Start the reads of this run (the repository; for a pull request also the baseline,
    the author and the sticky comment) on one background thread."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bfcl-github-lookups")
    repo = pool.submit(gh.get_repo, ctx.repository)
    baseline = author = comment = None
    if pr is not None and ctx.inputs.baseline in ("auto", "check-run"):
        baseline = pool.submit(_after(repo, lambda r: merge_base_digest(ctx, r, pr)))
    if pr is not None and ctx.inputs.comment is not CommentMode.OFF:
        login = pool.submit(resolve_author, gh, ctx.inputs.comment_author)

        def sticky(r: Repository) -> IssueComment | None:
            return find_sticky_comment(r, pr.number, ctx.inputs.check_name, _done(login))

        author, comment = login, pool.submit(_after(repo, sticky))
    return Lookups(repo=repo, baseline=baseline, author=author, comment=comment, _pool=pool)


def _after(repo: Future[Repository], read: Callable[[Repository], T]) -> Callable[[], T]:
    """`read` of the repository once it is known; skipped when reading it failed."""
    return lambda: read(_done(repo))


def _done(future: Future[T]) -> T:
    if future.exception() is not None:
        raise _Skipped
    return future.result()

"""The sticky PR comment: one per check name, found by marker *and* author, edited in place.

The marker alone is not enough (anyone can paste it into a comment), and the author alone is
not enough (two instances of the action share the bot account), so both must match. All pages
of comments are searched; the oldest match wins, so the comment keeps its place in the thread.
"""

from __future__ import annotations

import re

from github import Github, GithubException
from github.IssueComment import IssueComment
from github.Repository import Repository

from bfcl_action.report import github_limits as limits

COMMENT_LIMIT = limits.COMMENT_BODY.size
"""Characters (GitHub counts comment bodies in characters, not bytes)."""
DEFAULT_BOT = "github-actions[bot]"
TRUNCATED_NOTE = (
    "\n\n_… truncated to fit GitHub's comment size limit; the full report is in the job summary._\n"
)


def comment_marker(check_name: str) -> str:
    """Hidden HTML marker naming the check; safe for any check name."""
    safe = re.sub(r"[^A-Za-z0-9 ._/:@+-]", "_", check_name)[:100]
    return f"<!-- bfcl-action:comment check-name={safe} -->"


def with_marker(body: str, check_name: str, limit: int = COMMENT_LIMIT) -> str:
    """The comment body with its marker first, cut to GitHub's limit if needed."""
    marker = comment_marker(check_name)
    return limits.fit_chars(f"{marker}\n{body}", limit, TRUNCATED_NOTE)


def resolve_author(gh: Github, configured: str = "") -> str:
    """The login comments are posted as: the `comment-author` input, else `GET /user`.

    `GITHUB_TOKEN` and other app installation tokens cannot read `/user` (403); they post as
    `github-actions[bot]`, which is the fallback.
    """
    if configured:
        return configured
    try:
        return str(gh.get_user().login)
    except GithubException:
        return DEFAULT_BOT


def find_sticky_comment(
    repo: Repository, number: int, check_name: str, author: str
) -> IssueComment | None:
    marker = comment_marker(check_name)
    for comment in repo.get_issue(number).get_comments():
        if marker in (comment.body or "") and comment.user.login == author:
            return comment
    return None


def upsert_comment(
    repo: Repository, number: int, body: str, check_name: str, author: str
) -> tuple[IssueComment, bool]:
    """Create or update the sticky comment; returns it and whether it was created."""
    text = with_marker(body, check_name)
    existing = find_sticky_comment(repo, number, check_name, author)
    if existing is not None:
        existing.edit(text)
        return existing, False
    return repo.get_issue(number).create_comment(text), True

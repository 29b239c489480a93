"""Commit statuses per category (`bfcl/<category>`), for branch-protection rules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from github.Repository import Repository
from pydantic import BaseModel

from bfcl_action.report import github_limits as limits

DESCRIPTION_LIMIT = limits.STATUS_DESCRIPTION.size


class CategoryStatus(BaseModel):
    category: str
    state: Literal["success", "failure", "error", "pending"]
    description: str

    def context(self, prefix: str = "bfcl") -> str:
        return f"{prefix}/{self.category}"


def post_statuses(
    repo: Repository,
    sha: str,
    statuses: Sequence[CategoryStatus],
    *,
    prefix: str = "bfcl",
    target_url: str | None = None,
) -> int:
    """Post one status per category on `sha`; returns how many were posted."""
    commit = repo.get_commit(sha)
    for status in statuses:
        kwargs = {"target_url": target_url} if target_url else {}
        commit.create_status(
            state=status.state,
            description=limits.STATUS_DESCRIPTION.fit(status.description, "…"),
            context=status.context(prefix),
            **kwargs,
        )
    return len(statuses)

"""Which activity a `bfcl-action github` process runs: a pure function, as a truth table."""

from __future__ import annotations

import pytest

from bfcl_action.github.activities import Activity, choose_activity

A = Activity
# event, has PR, shard, needs key, has key -> activity
TABLE = [
    ("workflow_run", False, False, False, False, A.POST_ARTIFACT),
    ("workflow_run", True, True, True, False, A.POST_ARTIFACT),
    ("pull_request", True, False, True, False, A.SKIP),
    ("push", False, False, True, False, A.SKIP),
    ("schedule", False, True, True, False, A.SKIP),
    ("pull_request", True, False, False, False, A.PULL_REQUEST),
    ("pull_request", True, False, True, True, A.PULL_REQUEST),
    ("pull_request_target", True, False, True, True, A.PULL_REQUEST),
    ("pull_request", True, True, True, True, A.SHARD),
    ("push", False, True, False, False, A.SHARD),
    ("schedule", False, True, True, True, A.SHARD),
    ("schedule", False, False, True, True, A.SCHEDULED),
    ("workflow_dispatch", False, False, False, False, A.SCHEDULED),
    ("workflow_dispatch", True, False, False, False, A.PULL_REQUEST),
    ("push", False, False, True, True, A.SAVE_BASELINE),
    ("push", False, False, False, False, A.SAVE_BASELINE),
    ("release", False, False, False, False, A.SAVE_BASELINE),
]


@pytest.mark.parametrize(("event", "pr", "shard", "needs_key", "has_key", "expected"), TABLE)
def test_activity_truth_table(
    event: str, pr: bool, shard: bool, needs_key: bool, has_key: bool, expected: Activity
) -> None:
    chosen = choose_activity(
        event, has_pull_request=pr, shard=shard, needs_api_key=needs_key, has_api_key=has_key
    )
    assert chosen is expected

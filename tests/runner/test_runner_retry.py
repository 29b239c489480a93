"""Backoff: jittered, capped, and never shorter than a server's Retry-After."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from bfcl_action.model.providers.openai import parse_retry_after
from bfcl_action.model.retry import InfraFailure, RetryPolicy, with_retries
from bfcl_action.model.types import PermanentError, TransientError


def test_delay_is_jittered_within_the_exponential_ceiling() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0)
    rng = random.Random(0)
    delays = [policy.delay(attempt, None, rng) for attempt in range(10) for _ in range(20)]
    assert all(0 <= d <= 8.0 for d in delays)
    assert len({round(d, 6) for d in delays}) > 100


def test_retry_after_is_a_floor_capped_by_max_retry_after() -> None:
    policy = RetryPolicy(base_delay=0.01, max_retry_after=5.0)
    rng = random.Random(0)
    assert policy.delay(0, 2.0, rng) >= 2.0
    assert policy.delay(0, 500.0, rng) == 5.0


@pytest.mark.parametrize(
    ("headers", "expected"),
    [({"retry-after": "3"}, 3.0), ({"retry-after-ms": "250"}, 0.25), ({}, None)],
)
def test_retry_after_header_forms(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers) == expected


def test_retry_after_http_date() -> None:
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    wait = parse_retry_after({"retry-after": when})
    assert wait is not None and 25 <= wait <= 31


def test_gives_up_after_max_retries_with_the_last_reason() -> None:
    calls = 0
    waits: list[float] = []

    async def failing() -> str:
        nonlocal calls
        calls += 1
        raise TransientError("HTTP 503")

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    with pytest.raises(InfraFailure, match=r"HTTP 503 \(gave up after 3 attempts\)"):
        asyncio.run(with_retries(failing, RetryPolicy(max_retries=2), sleep=sleep))
    assert calls == 3
    assert len(waits) == 2


def test_permanent_error_is_not_retried() -> None:
    async def bad() -> str:
        raise PermanentError("HTTP 401: invalid key")

    with pytest.raises(InfraFailure, match="HTTP 401"):
        asyncio.run(with_retries(bad, RetryPolicy()))

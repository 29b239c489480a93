"""Retries with exponential backoff and full jitter, honouring `Retry-After`.

Transient failures (429, 5xx, timeouts, dropped connections, malformed or empty answers) are
retried up to `max_retries` times; a case that still has no answer becomes an infrastructure
error, which the run keeps apart from model failures.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from bfcl_action.model.types import PermanentError, TransientError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """`max_retries` retries after the first try; waits grow from `base_delay` up to `max_delay`.

    A server's `Retry-After` is a floor for the wait (capped at `max_retry_after`, so a
    misconfigured proxy cannot park the run for an hour).
    """

    max_retries: int = 6
    base_delay: float = 0.5
    max_delay: float = 30.0
    max_retry_after: float = 120.0

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        ceiling = min(self.max_delay, self.base_delay * (2**attempt))
        wait = rng.uniform(0, ceiling)
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.max_retry_after))
        return wait


class InfraFailure(Exception):
    """No answer after all retries (or a permanent error); the message says why."""

    def __init__(self, message: str, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


async def with_retries(
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    rng: random.Random | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    on_retry: Callable[[TransientError], None] | None = None,
) -> T:
    """Run `call` until it succeeds, retrying transient failures; raise `InfraFailure`."""
    rng = rng or random.Random()  # noqa: S311 - jitter, not security
    attempt = 0
    while True:
        try:
            return await call()
        except PermanentError as exc:
            raise InfraFailure(str(exc), attempt + 1) from exc
        except TransientError as exc:
            if attempt >= policy.max_retries:
                raise InfraFailure(
                    f"{exc} (gave up after {attempt + 1} attempts)", attempt + 1
                ) from exc
            if on_retry is not None:
                on_retry(exc)
            await sleep(policy.delay(attempt, exc.retry_after, rng))
            attempt += 1

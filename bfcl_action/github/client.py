"""A PyGithub client pointed at `GITHUB_API_URL`, with rate-limit-aware retries.

Retries cover secondary rate limits (403 + `retry-after`, or the secondary-limit message) and
5xx replies; a `retry-after` longer than `ActionContext.retry_wait_cap` is not slept on: the
call fails and the caller reports what could not be posted.
"""

from __future__ import annotations

import logging
from typing import Any

from github import Auth, Github, GithubException, GithubRetry
from github.GithubException import RateLimitExceededExceedsMaxWait
from github.Requester import Requester

from bfcl_action.github.context import ActionContext
from bfcl_action.safety.redact import redact_value

DEFAULT_TOTAL_RETRIES = 4

# PyGithub logs every retried 403 at INFO; the action reports failures itself, once.
logging.getLogger("github.GithubRetry").setLevel(logging.WARNING)

_send_json = Requester.requestJsonAndCheck


def _send_redacted(
    self: Requester,
    verb: str,
    url: str,
    parameters: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    input: Any | None = None,
    follow_302_redirect: bool = False,
) -> tuple[dict[str, Any], Any]:
    """Every JSON body this process sends to GitHub (comments, check runs, annotations,
    statuses, issues) passes `redact` first: the one output edge no caller can forget."""
    return _send_json(
        self, verb, url, parameters, headers, redact_value(input), follow_302_redirect
    )


Requester.requestJsonAndCheck = _send_redacted  # type: ignore[method-assign]


class CappedRetry(GithubRetry):
    """GithubRetry that refuses to sleep on a `retry-after` longer than the cap.

    PyGithub's own cap (`max_rate_limit_wait`) only covers waits it computes itself; a
    `retry-after` header is slept on by urllib3 whatever its length.
    """

    def increment(
        self,
        method: Any = None,
        url: Any = None,
        response: Any = None,
        error: Any = None,
        _pool: Any = None,
        _stacktrace: Any = None,
    ) -> Any:
        if response is not None and response.status in (403, 429):
            after = self.get_retry_after(response)
            cap = self.max_rate_limit_wait
            if after is not None and cap is not None and after > cap:
                raise RateLimitExceededExceedsMaxWait(
                    response.status,
                    {
                        "message": f"rate limited: retry-after {after:.0f}s is longer than the "
                        f"{cap:.0f}s this action waits"
                    },
                    dict(response.headers),
                    wait=after,
                )
        return super().increment(method, url, response, error, _pool, _stacktrace)


def make_retry(ctx: ActionContext) -> GithubRetry:
    return CappedRetry(
        total=DEFAULT_TOTAL_RETRIES,
        backoff_factor=0.5 if ctx.github_throttle is None else 0,
        secondary_rate_wait=min(60.0, ctx.retry_wait_cap),
        max_rate_limit_wait=ctx.retry_wait_cap,
    )


def make_github(ctx: ActionContext, token: str | None = None) -> Github:
    """The client for this run; `token` overrides the `github-token` input."""
    secret = token if token is not None else ctx.inputs.github_token.get_secret_value()
    kwargs: dict[str, Any] = {
        "base_url": ctx.api_url.rstrip("/"),
        "retry": make_retry(ctx),
        "timeout": 30,
        "user_agent": "bfcl-action",
    }
    if secret:
        kwargs["auth"] = Auth.Token(secret)
    # No pacing sleeps (PyGithub's defaults wait 0.25 s before every request and 1 s between
    # writes: 3 s of a PR check's 11 requests). GitHub asks for a pause between mutating
    # requests when a client makes many of them; a run makes a handful (check run, comment,
    # statuses), one at a time, and a secondary rate limit is still waited out by the retry.
    # BFCL_GITHUB_THROTTLE sets a pause for both again.
    throttle = ctx.github_throttle if ctx.github_throttle is not None else 0.0
    kwargs["seconds_between_requests"] = throttle
    kwargs["seconds_between_writes"] = throttle
    return Github(**kwargs)


def describe_error(exc: Exception) -> str:
    """One line for a warning: status and GitHub's message, no tokens or headers."""
    if isinstance(exc, GithubException):
        data = exc.data
        message = ""
        if isinstance(data, dict):
            message = str(data.get("message") or "")
            errors = data.get("errors")
            if isinstance(errors, list):
                details = [
                    str(e.get("message") or e.get("code") or "")
                    for e in errors
                    if isinstance(e, dict)
                ]
                details = [d for d in details if d]
                if details:
                    message = f"{message}: {'; '.join(details)}" if message else "; ".join(details)
        elif data:
            message = str(data)
        return f"{exc.status} {message}".strip()
    return f"{type(exc).__name__}: {exc}"

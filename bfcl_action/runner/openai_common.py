"""The one shared `AsyncOpenAI` client and the translation of its failures.

The SDK's own retries are off (`max_retries=0`): `bfcl_action.runner.retry` owns them so a
429's `Retry-After`, jitter and the infrastructure-error budget are decided in one place.
Requests go through the SDK's request path (auth, headers, timeouts, pooled connections) with
a ready JSON body, and the answer is read as plain JSON: no per-request re-validation of the
tools we built ourselves, which is most of the SDK's CPU cost per call.
"""

from __future__ import annotations

import email.utils
import json
import time
from typing import TYPE_CHECKING, Any, cast

import httpx2
import openai

from bfcl_action.fingerprint import canonical_json, sha256_hex
from bfcl_action.runner.backends import (
    BackendOptions,
    ModelAnswer,
    PermanentError,
    TransientError,
)

if TYPE_CHECKING:
    from openai._types import RequestOptions

RETRYABLE_STATUS = {408, 409, 429}

_PLATFORM_HEADERS = (
    "X-Stainless-Lang",
    "X-Stainless-Package-Version",
    "X-Stainless-OS",
    "X-Stainless-Arch",
    "X-Stainless-Runtime",
    "X-Stainless-Runtime-Version",
    "X-Stainless-Async",
)
_PER_REQUEST = cast(
    "RequestOptions",
    {
        "headers": {
            "x-stainless-retry-count": openai.Omit(),
            "x-stainless-read-timeout": openai.Omit(),
        }
    },
)
"""The SDK's optional telemetry headers are left out: each costs header building and
validation on every request (about 5-10% of the client's CPU), and no API needs them."""
RENDER_VERSION = "1"
"""Bumped when the way cases become requests changes, so old cache rows stop matching."""


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from `retry-after-ms` / `Retry-After` (seconds or an HTTP date)."""
    if headers is None:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(raw) if raw else None
        if parsed is None:
            return None
        return max(0.0, parsed.timestamp() - time.time())


def translate_error(exc: BaseException) -> TransientError | PermanentError:
    """Map an SDK exception to retry-or-not; the message never includes credentials."""
    if isinstance(exc, openai.APITimeoutError):
        return TransientError("timeout")
    if isinstance(exc, openai.APIConnectionError):
        return TransientError(f"connection error: {type(exc.__cause__ or exc).__name__}")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status in RETRYABLE_STATUS or status >= 500:
            retry_after = parse_retry_after(exc.response.headers)
            return TransientError(f"HTTP {status}", retry_after=retry_after)
        return PermanentError(f"HTTP {status}: {_short(exc.message)}")
    if isinstance(exc, (httpx2.TransportError, ConnectionError, TimeoutError)):
        return TransientError(f"connection error: {type(exc).__name__}")
    return TransientError(f"{type(exc).__name__}: {_short(str(exc))}")


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


class SharedClient:
    """One pooled `AsyncOpenAI` per run; every request of every case reuses its connections."""

    def __init__(self, options: BackendOptions) -> None:
        limits = httpx2.Limits(
            max_connections=max(1, options.concurrency),
            max_keepalive_connections=max(1, options.concurrency),
        )
        self.endpoint = options.base_url or "https://api.openai.com/v1"
        self.client = openai.AsyncOpenAI(
            api_key=options.api_key or "unset",
            base_url=options.base_url,
            timeout=options.timeout,
            max_retries=0,
            default_headers=cast(
                "dict[str, str]", {name: openai.Omit() for name in _PLATFORM_HEADERS}
            ),
            http_client=openai.DefaultAsyncHttpx2Client(limits=limits, timeout=options.timeout),
        )

    async def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        """POST /chat/completions; the parsed JSON answer or a translated error."""
        try:
            response = await self.client.post(
                "/chat/completions", body=body, cast_to=httpx2.Response, options=_PER_REQUEST
            )
        except openai.OpenAIError as exc:
            raise translate_error(exc) from exc
        except (httpx2.TransportError, ConnectionError, TimeoutError) as exc:
            raise translate_error(exc) from exc
        try:
            data = json.loads(response.content)
        except ValueError as exc:
            raise TransientError("malformed response body (not JSON)") from exc
        if not isinstance(data, dict):
            raise TransientError("malformed response body (not an object)")
        return data

    async def aclose(self) -> None:
        await self.client.close()


def first_message(data: dict[str, Any]) -> dict[str, Any]:
    """`choices[0].message`; empty or malformed choices are transient (retried)."""
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise TransientError("response has no choices")
    first = choices[0]
    message = first.get("message") if isinstance(first, dict) else None
    if not isinstance(message, dict):
        raise TransientError("response choice has no message")
    return message


def usage_answer(data: dict[str, Any], output: Any, latency: float) -> ModelAnswer:
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    assert isinstance(usage, dict)
    return ModelAnswer(
        output=output,
        input_tokens=usage.get("prompt_tokens"),
        output_tokens=usage.get("completion_tokens"),
        latency_s=round(latency, 4),
    )


def sampling_params(options: BackendOptions) -> dict[str, Any]:
    """The sampling fields of every request: only those set (an unset one is the server's
    default, and some models refuse any other temperature)."""
    params: dict[str, Any] = {}
    if options.temperature is not None:
        params["temperature"] = options.temperature
    if options.top_p is not None:
        params["top_p"] = options.top_p
    if options.seed is not None:
        params["seed"] = options.seed
    if options.max_tokens is not None:
        params["max_tokens"] = options.max_tokens
    return params


def request_key(
    *,
    model: str,
    endpoint: str,
    mode: str,
    messages_json: str,
    functions_key: str,
    params: dict[str, Any],
    sample: int,
) -> str:
    """Content address of one answer: what was asked, of whom, how, and which sample."""
    head = canonical_json(
        {
            "v": RENDER_VERSION,
            "model": model,
            "endpoint": endpoint.rstrip("/"),
            "mode": mode,
            "functions": functions_key,
            "params": params,
            "sample": sample,
        }
    )
    return sha256_hex(head + "\n" + messages_json)

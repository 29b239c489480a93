"""Any OpenAI-compatible Chat Completions endpoint (OpenAI, vLLM, Ollama, llama.cpp, ...).

Everything OpenAI-shaped lives here: the wire form of messages and tools, sampling fields,
reading `choices[0].message` back (with the variations real servers send), and translating
the SDK's failures into retry-or-not.

The SDK's own retries are off (`max_retries=0`): `bfcl_action.model.retry` owns them so a
429's `Retry-After`, jitter and the infrastructure-error budget are decided in one place.
A chat request is one POST on a pooled httpx2 client (as the SDK's own), with the headers
the SDK sends that an API reads (the key as a bearer token, JSON content type, the
organization and project from `OPENAI_ORG_ID` / `OPENAI_PROJECT_ID`) and a body encoded
once; the answer is read as plain JSON, and an HTTP error becomes the SDK's own
`APIStatusError` for `translate_error`. The SDK's per-request path (request options, header
merging, URL parsing, body re-encoding) cost about 1 ms of CPU per request, most of the
client's work at 300 requests a second, and importing the SDK about 1 s of every run
(issue 27): `openai` is imported only for the Batch API calls (files, batches, through the
SDK client, which shares the first pool) and to translate a failure.
"""

from __future__ import annotations

import dataclasses
import email.utils
import json
import os
import re
import time
from typing import TYPE_CHECKING, Any, Final, cast
from urllib.parse import urlsplit

import httpx2

from bfcl_action import __version__
from bfcl_action.core.errors import ConfigError
from bfcl_action.model import shapes
from bfcl_action.model.options import BackendOptions
from bfcl_action.model.types import (
    ChatRequest,
    ChatResponse,
    EndpointError,
    Message,
    PermanentError,
    ToolCallPart,
    TransientError,
    read_usage,
)
from bfcl_action.safety import redact
from bfcl_action.safety.escape import log_line

if TYPE_CHECKING:
    import openai

NAME = "openai"
BATCH_ENDPOINT: Final = "/v1/chat/completions"
"""The batch endpoint: OpenAI names it with the `/v1` prefix whatever the base URL."""
DEFAULT_ENDPOINT = "https://api.openai.com/v1"
RETRYABLE_STATUS = {408, 409, 429}
ENDPOINT_STATUS = {401, 403, 404}
"""Answers about the endpoint, not the request: a rejected key, a model or path that does
not exist. Every other case would get the same answer, so the run stops at the first."""

_PLATFORM_HEADERS = (
    "X-Stainless-Lang",
    "X-Stainless-Package-Version",
    "X-Stainless-OS",
    "X-Stainless-Arch",
    "X-Stainless-Runtime",
    "X-Stainless-Runtime-Version",
    "X-Stainless-Async",
)
_POOL_SIZE = 8
"""Connections per HTTP connection pool (see `OpenAIProvider.__init__`)."""
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""A chat answer larger than this is a bad answer for that request, not a run's memory."""

_REASONING = re.compile(r"^(?:.*/)?(o\d+|gpt-5)(?![\w.]*-chat)", re.IGNORECASE)
"""OpenAI reasoning models (o1, o3, o4-mini, gpt-5, with or without a provider prefix;
`gpt-5-chat` is not one): they refuse a temperature or top_p other than their default and
take `max_completion_tokens` only."""


def is_reasoning_model(model: str) -> bool:
    return bool(_REASONING.match(model))


def validate_base_url(url: str | None) -> str:
    """The endpoint to call; a base URL without `http(s)://` or a host is a config error
    (the SDK would otherwise fail every request with a message that names no URL)."""
    if url is None:
        return DEFAULT_ENDPOINT
    parts = urlsplit(url.strip())
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise ConfigError(
            f"base URL {log_line(url, 200)!r} must start with http:// or https:// and name a "
            "host (e.g. http://127.0.0.1:8000/v1)",
            field="base-url",
        )
    # a key in the URL (`?api-key=...`, `user:pass@`) is a secret like the API key: never
    # printed, reported or commented (`bfcl_action.safety.redact`)
    redact.register_url(url)
    return url.strip().rstrip("/")


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


def _server_message(exc: openai.APIStatusError) -> str:
    """The server's own error text (`error.message`), not the SDK's wrapper; escaped."""
    body = exc.body
    text = body.get("message") if isinstance(body, dict) else None
    return log_line(text if isinstance(text, str) and text else exc.message, 200)


def translate_error(
    exc: BaseException, *, endpoint: str = DEFAULT_ENDPOINT, model: str = ""
) -> TransientError | PermanentError | EndpointError:
    """Map an SDK exception to retry, fail this request, or stop the run. Messages name the
    endpoint and model where that helps, never credentials; server text is escaped."""
    import openai  # only once something failed (see the module docstring)

    if isinstance(exc, openai.APITimeoutError):
        return TransientError("timeout")
    if isinstance(exc, openai.APIConnectionError):
        cause = type(exc.__cause__ or exc).__name__
        return TransientError(f"connection error: {cause}", connection=True)
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status in RETRYABLE_STATUS or status >= 500:
            retry_after = parse_retry_after(exc.response.headers)
            return TransientError(f"HTTP {status}", retry_after=retry_after)
        if status in ENDPOINT_STATUS:
            what = {
                401: "rejected the API key",
                403: "refused access",
                404: "has no such model or path",
            }
            return EndpointError(
                f"{endpoint} {what[status]} (HTTP {status}) for model {model!r}: "
                f"{_server_message(exc)}; check the base URL, the model name and the key",
                field="model" if status == 404 else "api-key-env",
            )
        return PermanentError(f"HTTP {status}: {_server_message(exc)}")
    if isinstance(exc, (httpx2.TransportError, ConnectionError)):
        return TransientError(f"connection error: {type(exc).__name__}", connection=True)
    if isinstance(exc, TimeoutError):
        return TransientError("timeout")
    return TransientError(f"{type(exc).__name__}: {log_line(str(exc), 200)}")


def sampling_params(options: BackendOptions, endpoint: str) -> dict[str, Any]:
    """The sampling fields of every request: only those set (an unset one is the server's
    default). Reasoning models get no temperature or top_p (they refuse any but their
    default); the token cap is `max_completion_tokens` where the spec deprecates `max_tokens`
    (OpenAI's own API, reasoning models), `max_tokens` for other servers, which may predate
    the new name."""
    reasoning = is_reasoning_model(options.model)
    params: dict[str, Any] = {}
    if options.temperature is not None and not reasoning:
        params["temperature"] = options.temperature
    if options.top_p is not None and not reasoning:
        params["top_p"] = options.top_p
    if options.seed is not None:
        params["seed"] = options.seed
    if options.max_tokens is not None:
        official = urlsplit(endpoint).hostname == "api.openai.com"
        field = "max_completion_tokens" if official or reasoning else "max_tokens"
        params[field] = options.max_tokens
    return params


def wire_messages(messages: list[Message]) -> list[Message]:
    """Neutral messages in Chat Completions form: assistant calls as `function` entries with
    string arguments, tool messages with only the fields the API takes."""
    out: list[Message] = []
    for message in messages:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            out.append(
                {
                    "role": "assistant",
                    "content": message.get("content") or "",
                    "tool_calls": [
                        {
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": call["name"], "arguments": call["arguments"]},
                        }
                        for call in message["tool_calls"]
                    ],
                }
            )
        elif role == "tool":
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": message["tool_call_id"],
                    "content": message.get("content") or "",
                }
            )
        else:
            out.append(message)
    return out


def wire_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": tool} for tool in tools]


_TEXT_CALL = re.compile(r"<tool_call>|<\|python_tag\|>|\"(?:name|function)\"\s*:\s*\"")


def _calls_as_text(content: str, tool_names: set[str]) -> bool:
    """A text answer that looks like tool calls: a tool-call tag, a JSON object naming a
    function, or `[name(` / `name(` of an offered function at the start."""
    text = content.strip()
    if not text or not tool_names:
        return False
    if _TEXT_CALL.search(text):
        return True
    head = text.lstrip("[` \n").split("(", 1)[0].strip()
    return head in tool_names


async def _read_capped(response: httpx2.Response, limit: int) -> bytes:
    """The body of a streamed response, refused (that request fails) past `limit` bytes."""
    declared = response.headers.get("content-length", "")
    try:
        if declared.isdigit() and int(declared) > limit:
            raise PermanentError(f"response body of {declared} bytes, over the {limit}-byte cap")
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > limit:
                raise PermanentError(f"response body over the {limit}-byte cap")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        await response.aclose()


def read_message(data: dict[str, Any], tool_names: set[str], latency: float) -> ChatResponse:
    """`choices[0].message` in the neutral form, noting each non-standard shape it came in.
    Empty or malformed choices are transient (retried)."""
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise TransientError("response has no choices")
    first = choices[0]
    message = first.get("message") if isinstance(first, dict) else None
    if not isinstance(message, dict):
        raise TransientError("response choice has no message")
    seen: list[str] = []
    raw_content = message.get("content")
    content = raw_content if isinstance(raw_content, str) else ""
    if isinstance(raw_content, list):
        seen.append(shapes.CONTENT_PARTS)
    raw_calls = message.get("tool_calls")
    calls: list[ToolCallPart] = []
    raw_kept: list[dict[str, Any]] = []
    if isinstance(raw_calls, list) and raw_calls:
        for index, call in enumerate(raw_calls):
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(fn, dict):
                continue
            raw_kept.append(call)
            args = fn.get("arguments")
            if args is None or args == "":
                seen.append(shapes.ARGUMENTS_EMPTY)
                text = "{}"
            elif isinstance(args, str):
                text = args
            else:
                seen.append(shapes.ARGUMENTS_OBJECT)
                text = json.dumps(args)
            call_id = call.get("id")
            calls.append(
                ToolCallPart(
                    str(call_id) if call_id else f"call_{index}", str(fn.get("name", "")), text
                )
            )
    elif isinstance(message.get("function_call"), dict):
        seen.append(shapes.LEGACY_FUNCTION_CALL)
    elif _calls_as_text(content, tool_names):
        seen.append(shapes.CALLS_AS_TEXT)
    try:
        usage = read_usage(data.get("usage"))
    except ValueError as exc:
        raise PermanentError(str(exc)) from None
    model = data.get("model")
    fingerprint = data.get("system_fingerprint")
    refusal = message.get("refusal")
    return ChatResponse(
        content=content,
        tool_calls=tuple(calls),
        raw_tool_calls=tuple(raw_kept),
        input_tokens=usage.prompt_tokens,
        output_tokens=usage.completion_tokens,
        cached_tokens=usage.cached_tokens,
        latency_s=round(latency, 4),
        model=model if isinstance(model, str) else None,
        system_fingerprint=fingerprint if isinstance(fingerprint, str) else None,
        shapes=tuple(dict.fromkeys(seen)),
        refusal=refusal if isinstance(refusal, str) and refusal else None,
    )


def _organization_headers() -> dict[str, str]:
    """`OpenAI-Organization` / `OpenAI-Project` from the variables the SDK reads them from."""
    names = {"OpenAI-Organization": "OPENAI_ORG_ID", "OpenAI-Project": "OPENAI_PROJECT_ID"}
    return {header: os.environ[var] for header, var in names.items() if os.environ.get(var)}


def _status_error(response: httpx2.Response, content: bytes) -> openai.APIStatusError:
    """The error the SDK raises for an HTTP error answer (same message, same `body`: the
    answer's `error` object, else the parsed JSON or text), so `translate_error` reads a
    direct request's failure as it reads an SDK call's."""
    import openai  # only once something failed (see the module docstring)

    text = content.decode("utf-8", "replace").strip()
    parsed: Any = text
    message = f"Error code: {response.status_code}"
    try:
        parsed = json.loads(text)
    except ValueError:
        pass
    else:
        error = parsed.get("error", parsed) if isinstance(parsed, dict) else None
        detail = error.get("message") if isinstance(error, dict) else None
        if isinstance(detail, str) and detail:
            message += f" - {detail}"
    body = parsed.get("error", parsed) if isinstance(parsed, dict) else parsed
    return openai.APIStatusError(message, response=response, body=body)


def _sdk_failures() -> tuple[type[BaseException], ...]:
    """What an SDK call (Batch API) can raise; `openai` is imported by then."""
    import openai

    return (openai.OpenAIError, httpx2.TransportError, ConnectionError, TimeoutError)


class OpenAIProvider:
    """One pooled `AsyncOpenAI` per run; every request of every case reuses its connections."""

    name = NAME

    def __init__(self, options: BackendOptions) -> None:
        self.model = options.model
        self.endpoint = validate_base_url(options.base_url)
        self.params = sampling_params(options, self.endpoint)
        # Pools of at most `_POOL_SIZE` connections: httpcore's pool walks all of its
        # connections twice per request, so one pool of 64 spent more CPU on that walk than
        # the rest of the request path together; each request takes the least busy pool.
        concurrency = max(1, options.concurrency)
        pools = -(-concurrency // _POOL_SIZE)
        tls = httpx2.create_ssl_context()  # one for all pools: loading the CAs costs ~25 ms
        self._pools = [
            httpx2.AsyncClient(
                limits=httpx2.Limits(
                    max_connections=-(-concurrency // pools),
                    max_keepalive_connections=-(-concurrency // pools),
                ),
                timeout=options.timeout,
                follow_redirects=True,  # as the SDK's default client
                verify=tls,
            )
            for _ in range(pools)
        ]
        self._in_flight = [0] * pools
        self.http = self._pools[0]
        self._api_key = options.api_key or "unset"
        self._timeout = options.timeout
        self._sdk: openai.AsyncOpenAI | None = None
        self._headers = {
            "Accept": "application/json",
            "Content-Type": "application/json",
            "User-Agent": f"bfcl-action/{__version__}",
            "Authorization": f"Bearer {self._api_key}",
            **_organization_headers(),
        }
        base = httpx2.URL(self.endpoint)  # joined as the SDK joins a path to its base URL
        raw_path = base.raw_path if base.raw_path.endswith(b"/") else base.raw_path + b"/"
        self._chat_url = base.copy_with(raw_path=raw_path + b"chat/completions")

    @property
    def client(self) -> openai.AsyncOpenAI:
        """The SDK client (Batch API calls), made on first use over the first pool."""
        if self._sdk is None:
            import openai

            self._sdk = openai.AsyncOpenAI(
                api_key=self._api_key,
                base_url=self.endpoint,
                timeout=self._timeout,
                max_retries=0,
                default_headers=cast(
                    "dict[str, str]", {name: openai.Omit() for name in _PLATFORM_HEADERS}
                ),
                http_client=self.http,
            )
        return self._sdk

    def identity(self) -> dict[str, Any]:
        """What, besides the messages and tools, decides an answer (part of its cache key)."""
        return {"endpoint": self.endpoint, "model": self.model, "params": self.params}

    def body(self, request: ChatRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": wire_messages(request.messages),
            **self.params,
        }
        if request.tools:
            body["tools"] = wire_tools(request.tools)
        if request.response_format is not None:
            body["response_format"] = request.response_format
        return body

    async def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        """POST /chat/completions; the parsed JSON answer or a translated error."""
        request = httpx2.Request(
            "POST", self._chat_url, headers=self._headers, content=json.dumps(body).encode()
        )
        pool = self._in_flight.index(min(self._in_flight))
        self._in_flight[pool] += 1
        try:  # streamed, so the body is read within the cap
            response = await self._pools[pool].send(request, stream=True)
            content = await _read_capped(response, MAX_RESPONSE_BYTES)
        except httpx2.TimeoutException:
            raise TransientError("timeout") from None
        except (httpx2.TransportError, ConnectionError, TimeoutError) as exc:
            raise translate_error(exc, endpoint=self.endpoint, model=self.model) from exc
        finally:
            self._in_flight[pool] -= 1
        if response.is_error:
            error = _status_error(response, content)
            raise translate_error(error, endpoint=self.endpoint, model=self.model) from error
        try:
            data = json.loads(content)
        except ValueError as exc:
            raise TransientError("malformed response body (not JSON)") from exc
        if not isinstance(data, dict):
            raise TransientError("malformed response body (not an object)")
        return data

    async def complete(self, request: ChatRequest) -> ChatResponse:
        start = time.perf_counter()
        data = await self.chat(self.body(request))
        names = {str(t.get("name")) for t in request.tools}
        return read_message(data, names, time.perf_counter() - start)

    # -- Batch API (bfcl_action.model.batch) -------------------------------------------
    def batch_line(self, custom_id: str, request: ChatRequest) -> dict[str, Any]:
        """One line of a batch input file: the body a real-time request would send."""
        return {
            "custom_id": custom_id,
            "method": "POST",
            "url": BATCH_ENDPOINT,
            "body": self.body(request),
        }

    def read_batch_body(self, body: dict[str, Any], tool_names: set[str]) -> ChatResponse:
        """A batch answer, read as a real-time one (no latency: the batch decides when)."""
        response = read_message(body, tool_names, 0.0)
        return dataclasses.replace(response, latency_s=None, batch=True)

    async def submit_batch(self, data: bytes) -> dict[str, Any]:
        """Upload the input file (`purpose=batch`) and create a 24-hour batch over it."""
        try:
            uploaded = await self.client.files.create(
                file=("requests.jsonl", data, "application/jsonl"), purpose="batch"
            )
            batch = await self.client.batches.create(
                input_file_id=uploaded.id,
                endpoint=BATCH_ENDPOINT,
                completion_window="24h",
                metadata={"created_by": "bfcl-action"},
            )
        except _sdk_failures() as exc:
            raise translate_error(exc, endpoint=self.endpoint, model=self.model) from exc
        return batch.model_dump(mode="json", warnings=False)

    async def retrieve_batch(self, batch_id: str) -> dict[str, Any]:
        try:
            batch = await self.client.batches.retrieve(batch_id)
        except _sdk_failures() as exc:
            raise translate_error(exc, endpoint=self.endpoint, model=self.model) from exc
        return batch.model_dump(mode="json", warnings=False)

    async def download_file(self, file_id: str) -> bytes:
        try:
            content = await self.client.files.content(file_id)
        except _sdk_failures() as exc:
            raise translate_error(exc, endpoint=self.endpoint, model=self.model) from exc
        return content.content

    async def aclose(self) -> None:
        for pool in self._pools:  # the SDK client, if made, shares the first
            await pool.aclose()


def create(options: BackendOptions) -> OpenAIProvider:
    """The registry's entry point (`bfcl_action.model.registry`)."""
    return OpenAIProvider(options)

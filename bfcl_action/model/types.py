"""The message-level vocabulary: a chat request, its response, and how a request can fail.

Messages are plain dicts in one provider-neutral form (the chat form BFCL's data already
uses), so a case's question goes into a request as it is:

- `{"role": "system" | "user", "content": str}`;
- `{"role": "assistant", "content": str, "tool_calls": [{"id", "name", "arguments"}]}`,
  where `arguments` is the JSON text exactly as the model wrote it;
- `{"role": "tool", "tool_call_id": str, "name": str, "content": str}`: one per call.

Tools are function schemas `{"name", "description", "parameters"}` (JSON Schema). A provider
shapes both into its own wire format (`bfcl_action.model.providers`), and reads its answer
back into a `ChatResponse`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bfcl_action.core.errors import BfclActionError

Message = dict[str, Any]

MAX_TOKEN_COUNT = 100_000_000
"""More tokens than any model reads or writes in one answer: a larger count is a bad field."""
TokenCount = Annotated[int, Field(strict=True, ge=0, le=MAX_TOKEN_COUNT)]


class _UsageDetails(BaseModel):
    model_config = ConfigDict(extra="ignore")
    cached_tokens: TokenCount | None = None


class Usage(BaseModel):
    """A server's `usage` object, as far as a run reads it: whole token counts in
    `0..MAX_TOKEN_COUNT` (not `"12"`, `-5` or `1e308`), so the cost step gets numbers."""

    model_config = ConfigDict(extra="ignore")
    prompt_tokens: TokenCount | None = None
    completion_tokens: TokenCount | None = None
    prompt_tokens_details: _UsageDetails | None = None

    @property
    def cached_tokens(self) -> int | None:
        details = self.prompt_tokens_details
        return details.cached_tokens if details is not None else None


def read_usage(raw: object) -> Usage:
    """`raw` (the answer's `usage`, absent or null allowed) validated; a `ValueError` naming
    the bad field otherwise (the caller fails that request, never the run)."""
    if raw is None:
        return Usage()
    try:
        return Usage.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "usage"
        found = repr(first.get("input"))[:40]
        raise ValueError(
            f"malformed usage.{where} from the server: {first['msg']} (found {found})"
        ) from None


class TransientError(Exception):
    """Worth retrying (429, 5xx, timeout, dropped connection, malformed or empty body).

    `connection` marks failures to reach the server at all (refused, reset, DNS): a run of
    them is one outage, which the request path's circuit breaker turns into one error.
    """

    def __init__(
        self, message: str, *, retry_after: float | None = None, connection: bool = False
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.connection = connection


class PermanentError(Exception):
    """Retrying this request will not help (4xx other than 408/409/429, no recorded answer);
    other requests may still succeed."""


class EndpointError(BfclActionError):
    """The endpoint cannot serve this run at all (rejected key, unknown model, wrong URL,
    unreachable server): the run stops at the first such answer instead of failing every
    case the same way."""


@dataclass(frozen=True)
class ToolCallPart:
    """One tool call of an assistant message; `arguments` is the model's JSON text."""

    id: str
    name: str
    arguments: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass(frozen=True)
class ChatRequest:
    """One request: the history so far and the tools offered.

    `tools_key` is a stable digest of `tools` (the renderer computes it once per function
    set), so the cache key need not serialise the tools on every request. `case_id` only
    labels the cache row.
    """

    messages: list[Message]
    tools: list[dict[str, Any]] = field(default_factory=list)
    tools_key: str = ""
    sample: int = 0
    case_id: str = ""
    response_format: dict[str, Any] | None = None
    """A structured-output format (Chat Completions' `response_format`), when one is asked
    for (`bfcl-action generate` asks for a JSON schema); part of the cache key when set."""


@dataclass(frozen=True)
class ChatResponse:
    """The assistant's message, read back into the neutral form, with what the server said
    about it: usage, latency, the serving `model` and `system_fingerprint` (so a run can tell
    when the model behind a name changed), and `shapes`, the non-standard forms the answer
    came in (see `bfcl_action.model.shapes`).

    `raw_tool_calls` keeps the calls exactly as sent (arguments may be an object, `""` or
    `null`), so scoring sees what BFCL would see; `tool_calls` is the normalised form that
    goes back into a conversation's history.
    """

    content: str
    tool_calls: tuple[ToolCallPart, ...] = ()
    raw_tool_calls: tuple[dict[str, Any], ...] = ()
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None
    """Prompt tokens the provider served from its prompt cache (billed at a lower rate)."""
    latency_s: float | None = None
    model: str | None = None
    system_fingerprint: str | None = None
    shapes: tuple[str, ...] = ()
    batch: bool = False
    """Answered through the Batch API (billed at the batch discount)."""
    refusal: str | None = None
    """A structured-output refusal (`message.refusal`), when the model declined."""
    cached: bool = field(default=False, compare=False)
    """Served from the response cache in this run (not stored)."""

    def assistant_message(self) -> Message:
        """The message as it goes back into the history (neutral form)."""
        message: Message = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [call.to_json() for call in self.tool_calls]
        return message

    def to_json(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "tool_calls": [c.to_json() for c in self.tool_calls],
            "raw_tool_calls": list(self.raw_tool_calls),
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cached_tokens": self.cached_tokens,
            "latency_s": self.latency_s,
            "model": self.model,
            "system_fingerprint": self.system_fingerprint,
            "shapes": list(self.shapes),
            "batch": self.batch,
            **({"refusal": self.refusal} if self.refusal else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ChatResponse:
        return cls(
            content=str(data.get("content") or ""),
            tool_calls=tuple(
                ToolCallPart(str(c["id"]), str(c["name"]), str(c["arguments"]))
                for c in data.get("tool_calls") or []
            ),
            raw_tool_calls=tuple(data.get("raw_tool_calls") or ()),
            input_tokens=_count(data.get("input_tokens")),
            output_tokens=_count(data.get("output_tokens")),
            cached_tokens=_count(data.get("cached_tokens")),
            latency_s=data.get("latency_s"),
            model=data.get("model"),
            system_fingerprint=data.get("system_fingerprint"),
            shapes=tuple(data.get("shapes") or ()),
            batch=bool(data.get("batch")),
            refusal=data.get("refusal") or None,
        )


def _count(value: object) -> int | None:
    """A token count read back from the cache: a whole number in range, else unknown."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKEN_COUNT:
        return value
    return None


def served_label(model: str | None, fingerprint: str | None) -> str:
    """`model` and `system_fingerprint` as one label (`gpt-4o-2024-08-06 · fp_abc`)."""
    return " · ".join(part for part in (model or "?", fingerprint) if part)


@dataclass
class RequestStats:
    """What the request path did, over every request of every case and conversation step."""

    requests: int = 0
    """HTTP requests sent (retries included)."""
    cache_hits: int = 0
    """Answers from the cache, written by an earlier run."""
    shared: int = 0
    """Requests identical to one already asked in this run, answered by that one."""
    batched: int = 0
    """Answers received through the Batch API in this run (not cache hits)."""
    retries: int = 0
    retry_reasons: dict[str, int] = field(default_factory=dict)
    shapes: Counter[str] = field(default_factory=Counter)
    """Answers per non-standard shape (cached answers included: they are this run's answers)."""
    models: Counter[str] = field(default_factory=Counter)
    """Answers per serving `model` the server named."""
    fingerprints: Counter[str] = field(default_factory=Counter)
    """Answers per `system_fingerprint` the server named."""
    served_fresh: Counter[str] = field(default_factory=Counter)
    """Answers asked in this run, per `served_label` (serving model and fingerprint)."""
    served_cached: Counter[str] = field(default_factory=Counter)
    """Answers reused from the cache, per `served_label`: when the two disagree, the
    provider changed the model behind the name between the runs that asked them."""

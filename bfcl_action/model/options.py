"""What a model provider and the request path need to know, parsed once by the caller."""

from __future__ import annotations

from dataclasses import dataclass

from bfcl_action.core.records import Mode


@dataclass(frozen=True)
class BackendOptions:
    """Everything a backend may need, parsed once from the command line."""

    model: str
    mode: Mode
    base_url: str | None = None
    api_key: str | None = None
    temperature: float | None = 0.001
    """None: not sent, for reasoning models that accept only their default."""
    top_p: float | None = None
    seed: int | None = None
    """The request's `seed` (OpenAI's best-effort determinism), sent when set."""
    timeout: float = 60.0
    """Seconds one request may take in total (connect, wait and read), not per read."""
    concurrency: int = 8
    max_tokens: int | None = None
    """Cap on the answer's tokens; sent as `max_completion_tokens` to OpenAI's own API and to
    reasoning models (the spec deprecates `max_tokens`), as `max_tokens` elsewhere."""

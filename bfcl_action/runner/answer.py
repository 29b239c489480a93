"""What the executor asks of a backend, and the answer it gets: a case's output in BFCL's
result form. Backends: `bfcl_action.runner.chat` (any model, through the request path) and
`bfcl_action.runner.replay`; `bfcl_action.runner.backends` picks one for a run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from bfcl_action.core.records import Mode, TestCase
from bfcl_action.model.types import RequestStats


@dataclass(frozen=True)
class ModelAnswer:
    """A case's answer in BFCL's result form: FC `[{name: "<json args>"}]`, prompt text, or
    for a conversation one list of step outputs per turn. Tokens and latency are summed over
    the case's requests; `cached` when every one came from the cache."""

    output: Any
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None
    latency_s: float | None = None
    served_model: str | None = None
    """The `model` the server said answered (its first request's, for a conversation)."""
    system_fingerprint: str | None = None
    """The server's `system_fingerprint` for that answer, when it sends one."""
    batch: bool = False
    """Answered through the Batch API (every request, for a conversation)."""
    cached: bool = field(default=False, compare=False)


class Backend(Protocol):
    """What the executor needs: an answer per (case, sample), and the request counters."""

    model: str
    mode: Mode

    @property
    def stats(self) -> RequestStats:
        """Counters of every request the backend sent (zero for a replay)."""
        ...

    async def answer(self, case: TestCase, sample: int) -> ModelAnswer:
        """Raise `InfraFailure`/`PermanentError` when this case gets no answer, and
        `EndpointError` when the whole run must stop."""
        ...

    async def aclose(self) -> None: ...

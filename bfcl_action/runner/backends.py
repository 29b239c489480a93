"""The backend protocol (what the executor needs from a model) and the registry of backends.

A backend turns a case into a request (pure, cheap, cacheable) and a request into an answer
(I/O). Adding a provider means one module with a class satisfying `Backend` and one line in
`BACKENDS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from bfcl_action.errors import ConfigError
from bfcl_action.models import Mode, TestCase


@dataclass(frozen=True)
class ModelRequest:
    """One call to make: `body` is the JSON body; `cache_key` addresses its answer."""

    case_id: str
    sample: int
    body: dict[str, Any]
    cache_key: str | None
    context: Any = None
    """Backend-private data needed to read the answer (e.g. the function-name map)."""


@dataclass(frozen=True)
class ModelAnswer:
    """A model's answer in BFCL's result form: FC `[{name: "<json args>"}]` or text."""

    output: Any
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency_s: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "output": self.output,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "latency_s": self.latency_s,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ModelAnswer:
        return cls(
            output=data.get("output"),
            input_tokens=data.get("input_tokens"),
            output_tokens=data.get("output_tokens"),
            latency_s=data.get("latency_s"),
        )


class TransientError(Exception):
    """Worth retrying (429, 5xx, timeout, dropped connection, malformed or empty body)."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PermanentError(Exception):
    """Retrying will not help (4xx other than 408/409/429, no recorded answer)."""


class Backend(Protocol):
    """What the executor needs from a model provider."""

    model: str
    mode: Mode

    def build_request(self, case: TestCase, sample: int) -> ModelRequest:
        """Pure: the request for one sample of a case (no I/O)."""
        ...

    async def send(self, request: ModelRequest) -> ModelAnswer:
        """Ask the model; raise `TransientError` or `PermanentError` on failure."""
        ...

    async def aclose(self) -> None: ...


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
    concurrency: int = 8
    max_tokens: int | None = None


BackendFactory = Callable[[BackendOptions], Backend]


def _openai_fc(options: BackendOptions) -> Backend:
    from bfcl_action.runner.openai_fc import OpenAIFunctionCalling

    return OpenAIFunctionCalling(options)


def _openai_prompt(options: BackendOptions) -> Backend:
    from bfcl_action.runner.openai_prompt import OpenAIPrompt

    return OpenAIPrompt(options)


def _replay(options: BackendOptions) -> Backend:
    from bfcl_action.runner.replay import ReplayBackend

    return ReplayBackend.from_path(options.model.removeprefix("replay:"), mode=options.mode)


BACKENDS: dict[str, BackendFactory] = {
    "openai-fc": _openai_fc,
    "openai-prompt": _openai_prompt,
    "replay": _replay,
}


def backend_name(options: BackendOptions) -> str:
    """`replay:PATH` models replay files; every other model goes to the OpenAI API."""
    if options.model.startswith("replay:"):
        return "replay"
    return "openai-fc" if options.mode is Mode.FC else "openai-prompt"


def create_backend(options: BackendOptions) -> Backend:
    name = backend_name(options)
    try:
        factory = BACKENDS[name]
    except KeyError:
        raise ConfigError(f"no backend named {name!r}", field="model") from None
    return factory(options)

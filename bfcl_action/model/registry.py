"""Which provider serves a model: `--model NAME:MODEL` picks the provider module `NAME` in
`bfcl_action.model.providers`; any other model name goes to the OpenAI-compatible provider.

Providers are found by module name, so adding one is adding one file; a name that is not a
provider module is part of the model name (Ollama's `llama3.1:8b` stays one model).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import Any, Protocol

from bfcl_action.model import providers
from bfcl_action.model.options import BackendOptions
from bfcl_action.model.types import ChatRequest, ChatResponse

DEFAULT_PROVIDER = "openai"


class Provider(Protocol):
    """What the request path needs from a provider."""

    model: str
    endpoint: str

    def identity(self) -> dict[str, Any]:
        """Everything besides messages and tools that decides an answer (endpoint, model,
        sampling fields): part of every cache key."""
        ...

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """One attempt; raise `TransientError`, `PermanentError` or `EndpointError`."""
        ...

    async def aclose(self) -> None: ...


def provider_names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(providers.__path__) if not m.ispkg)


def split_model(model: str) -> tuple[str, str]:
    """(provider, model name as the provider knows it)."""
    prefix, sep, rest = model.partition(":")
    if sep and rest and prefix in provider_names():
        return prefix, rest
    return DEFAULT_PROVIDER, model


def create_provider(options: BackendOptions) -> Provider:
    """The provider for `options.model`; raises `ConfigError` for unusable options (such as a
    base URL without a scheme) before any request is made."""
    name, model = split_model(options.model)
    module = importlib.import_module(f"{providers.__name__}.{name}")
    if model != options.model:
        options = dataclasses.replace(options, model=model)
    provider: Provider = module.create(options)
    return provider

"""Embeddings through the run's model endpoint (`POST /embeddings`), for the memory_vector
backend: the same provider, key, timeout and retry policy as the run's chat requests.

A provider that can embed implements `EmbeddingProvider`; `embed` runs one call under the
client's retry policy (429s, 5xx and dropped connections retried, a 4xx fails the call).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from bfcl_action.model.request import ModelClient
from bfcl_action.model.retry import with_retries
from bfcl_action.model.types import PermanentError


@runtime_checkable
class EmbeddingProvider(Protocol):
    async def embed(self, model: str, texts: list[str]) -> list[list[float]]:
        """One `/embeddings` call: a vector per text, in order."""
        ...


async def embed(client: ModelClient, model: str, texts: list[str]) -> list[list[float]]:
    """Vectors of `texts` from `model` at the run's endpoint; `PermanentError` when the
    provider cannot embed or the answer is not one vector per text."""
    provider = client.provider
    if not isinstance(provider, EmbeddingProvider):
        raise PermanentError(f"the {type(provider).__name__} provider cannot embed texts")
    vectors = await with_retries(lambda: provider.embed(model, texts), client.policy)
    if len(vectors) != len(texts) or any(not v for v in vectors):
        raise PermanentError(
            f"the embeddings answer has {len(vectors)} vectors for {len(texts)} texts"
        )
    return vectors

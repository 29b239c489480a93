"""Which backend serves a run.

A chat backend (`bfcl_action.runner.chat`) answers through the model layer's one request
path (`bfcl_action.model`), a single-turn case with one request and a multi-turn case with
the conversation loop (`bfcl_action.multiturn.driver`), which asks step by step through the
same path. `replay:PATH` serves recorded answers without a model. Providers (OpenAI and
others) are registered in `bfcl_action.model.registry`, not here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bfcl_action.model.options import BackendOptions
from bfcl_action.runner.answer import Backend, ModelAnswer

if TYPE_CHECKING:
    from bfcl_action.model.cache import ResponseCache
    from bfcl_action.model.retry import RetryPolicy
    from bfcl_action.multiturn.check import ExecutionOptions


def create_backend(
    options: BackendOptions,
    *,
    cache: ResponseCache | None = None,
    policy: RetryPolicy | None = None,
    multi_turn: ExecutionOptions | None = None,
) -> Backend:
    """`replay:PATH` replays recorded answers; every other model is asked through the request
    path (cache, retries, concurrency, counters). Raises `ConfigError` for bad options."""
    if options.model.startswith("replay:"):
        from bfcl_action.runner.replay import ReplayBackend

        return ReplayBackend.from_path(options.model.removeprefix("replay:"), mode=options.mode)
    from bfcl_action.model.request import open_client
    from bfcl_action.runner.chat import ChatBackend

    client = open_client(options, cache=cache, policy=policy)
    return ChatBackend(client, options.mode, multi_turn=multi_turn)


__all__ = ["Backend", "ModelAnswer", "create_backend"]

"""Asking models: backends (OpenAI FC, OpenAI prompt, replay), cache, retries, concurrency.

    report, stats = run_evaluation(cases, RunOptions(backend=BackendOptions(model=..., mode=...)))

Modules: `backends` (protocol + registry), `openai_fc`, `openai_prompt`, `replay`, `render`
(function docs -> tools / prompt text, once per function set), `naming` (API-safe names),
`cache` (sqlite, one row per answer), `retry`, `execute` (bounded asyncio pool), `progress`,
`verdicts` (the one call into the checker), `pipeline` (a whole run). Reading, writing
and merging reports is `bfcl_action.run_reports`.
"""

from bfcl_action.runner.backends import (
    BACKENDS,
    Backend,
    BackendOptions,
    ModelAnswer,
    ModelRequest,
    PermanentError,
    TransientError,
    create_backend,
)
from bfcl_action.runner.cache import ResponseCache
from bfcl_action.runner.execute import CaseOutcome, ExecutionStats, SampleOutcome, execute
from bfcl_action.runner.pipeline import RunOptions, infra_error_rate, run_evaluation
from bfcl_action.runner.retry import InfraFailure, RetryPolicy, with_retries

__all__ = [
    "BACKENDS",
    "Backend",
    "BackendOptions",
    "CaseOutcome",
    "ExecutionStats",
    "InfraFailure",
    "ModelAnswer",
    "ModelRequest",
    "PermanentError",
    "ResponseCache",
    "RetryPolicy",
    "RunOptions",
    "SampleOutcome",
    "TransientError",
    "create_backend",
    "execute",
    "infra_error_rate",
    "run_evaluation",
    "with_retries",
]

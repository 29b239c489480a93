"""A run: every case asked (through the model layer's request path), judged and scored.

    report, stats = run_evaluation(cases, RunOptions(backend=BackendOptions(model=..., mode=...)))

Modules: `backends` (the case-level protocol and which backend serves a run), `chat`
(single-turn cases over the request path; multi-turn ones to the conversation loop in
`bfcl_action.multiturn.driver`), `replay`, `execute` (bounded asyncio pool over cases),
`progress`, `verdicts` (the one call into the checker), `pipeline` (a whole run),
`evaluation` (a run as plain function calls over resolved settings: what `bfcl-action run`
and the Action share) and `serve` (the local endpoint `serve-replay` starts).
Requests, cache and retries are in `bfcl_action.model` (`model.options.BackendOptions`,
...). Reading, writing and merging reports is `bfcl_action.results.run_reports`.
"""

from bfcl_action.runner.backends import Backend, ModelAnswer, create_backend
from bfcl_action.runner.execute import CaseOutcome, ExecutionStats, SampleOutcome, execute
from bfcl_action.runner.pipeline import RunOptions, infra_error_rate, run_evaluation

__all__ = [
    "Backend",
    "CaseOutcome",
    "ExecutionStats",
    "ModelAnswer",
    "RunOptions",
    "SampleOutcome",
    "create_backend",
    "execute",
    "infra_error_rate",
    "run_evaluation",
]

"""The one place where answers become verdicts: the checker per sample, samples combined.

With `--repeat K` a case's `valid` is its first sample's verdict (so it matches a one-sample
run over the same cache) and `samples` holds all K; `scoring.repeat_summary` gives mean accuracy,
the all-K-pass rate (pass^k) and the cases that flip between samples.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bfcl_action.categories import is_multi_turn
from bfcl_action.checker import check_case
from bfcl_action.multiturn.check import ExecutionOptions, check_conversation
from bfcl_action.multiturn.executable import check_executable
from bfcl_action.records import CaseResult, ExecutionData, Mode, TestCase
from bfcl_action.runner.execute import CaseOutcome

Judge = Callable[[TestCase, Any, Mode], CaseResult]


def checker_judge(multi_turn: ExecutionOptions | None = None) -> Judge:
    """`bfcl_action.checker.check_case` (decodes, checks, never raises); multi-turn cases go
    to `bfcl_action.multiturn.check_conversation`, which runs their environments."""

    def judge(case: TestCase, output: Any, mode: Mode) -> CaseResult:
        if is_multi_turn(case.category):
            return check_conversation(case, output, mode=mode, options=multi_turn)
        if case.metadata_as(ExecutionData).execute is not None:
            return check_executable(case, output, mode=mode, options=multi_turn)
        return check_case(case, output, mode=mode)

    return judge


def infra_result(case: TestCase, message: str) -> CaseResult:
    return CaseResult(
        id=case.id,
        category=case.category,
        suite=case.suite,
        valid=False,
        infra_error=message,
        error=[message],
    )


def judge_outcome(outcome: CaseOutcome, mode: Mode, judge: Judge) -> CaseResult:
    case = outcome.case
    answered = [s.answer for s in outcome.samples if s.answer is not None]
    if not answered:
        reasons = sorted({s.infra_error or "no answer" for s in outcome.samples})
        return infra_result(case, "; ".join(reasons))
    verdicts = [judge(case, answer.output, mode) for answer in answered]
    first, answer = verdicts[0], answered[0]
    update: dict[str, Any] = {
        "suite": first.suite or case.suite,
        "model_output": answer.output,
        "latency_s": answer.latency_s,
        "input_tokens": answer.input_tokens,
        "output_tokens": answer.output_tokens,
        "cached_tokens": answer.cached_tokens,
        "reused": answer.cached,
        "batch": answer.batch,
    }
    if len(outcome.samples) > 1:
        update["samples"] = [v.valid for v in verdicts]
    return first.model_copy(update=update)


def runs_code(case: TestCase) -> bool:
    """Multi-turn and executable cases: judging them waits on sandbox processes."""
    return is_multi_turn(case.category) or case.metadata_as(ExecutionData).execute is not None


def judge_outcomes(
    outcomes: Sequence[CaseOutcome],
    mode: Mode,
    judge: Judge | None = None,
    *,
    sandbox_workers: int | None = None,
) -> list[CaseResult]:
    """Verdicts in case order. Cases that run code are judged on a few threads at once
    (their time is spent waiting on sandbox workers, which run in parallel)."""
    judge = judge or checker_judge()
    results: list[CaseResult | None] = [None] * len(outcomes)
    heavy = [i for i, o in enumerate(outcomes) if runs_code(o.case)]
    workers = sandbox_workers or min(8, 2 * (os.cpu_count() or 1))
    if len(heavy) > 1 and workers > 1:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {i: pool.submit(judge_outcome, outcomes[i], mode, judge) for i in heavy}
            for i, future in futures.items():
                results[i] = future.result()
    for i, outcome in enumerate(outcomes):
        if results[i] is None:
            results[i] = judge_outcome(outcome, mode, judge)
    return [r for r in results if r is not None]

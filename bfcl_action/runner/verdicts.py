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

from bfcl_action.checker import check_case
from bfcl_action.core.categories import is_multi_turn
from bfcl_action.core.fingerprint import canonical_json, sha256_hex
from bfcl_action.core.records import CaseResult, ExecutionData, Mode, TestCase
from bfcl_action.multiturn.check import ExecutionOptions, check_conversation
from bfcl_action.multiturn.executable import check_executable
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
        cluster=case.cluster,
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
        "cluster": case.cluster,
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
    return mark_shared_requests(outcomes, [r for r in results if r is not None])


def request_identity(case: TestCase) -> str:
    """What a single-turn case's request is made of (question, offered functions and their
    order, language): equal identities, equal requests for any model and settings."""
    content = {
        "question": [
            [m.model_dump(mode="json", exclude_none=True) for m in t] for t in case.question
        ],
        "functions": [f.model_dump(mode="json") for f in case.functions],
        "language": case.language.value,
    }
    return sha256_hex(canonical_json(content))


def mark_shared_requests(
    outcomes: Sequence[CaseOutcome], results: list[CaseResult]
) -> list[CaseResult]:
    """A derived case whose request is its question's other case's (the k=0 distractor
    variant and its own case) names that case, first in case order, in `same_request_as`:
    one request (the request path asks identical requests once), counted once as evidence,
    scored in both suites. Only cases of one cluster are compared (cheap; a derived case's
    twin is its own question's), multi-turn cases never (a conversation is no one request)."""
    members: dict[str, list[int]] = {}
    for index, outcome in enumerate(outcomes):
        case = outcome.case
        if not is_multi_turn(case.category):
            members.setdefault(case.cluster_id(), []).append(index)
    out = list(results)
    for indexes in members.values():
        names: dict[tuple[str, ...], list[int]] = {}  # only equal tool lists can be twins
        for index in indexes:
            offered = tuple(f.name for f in outcomes[index].case.functions)
            names.setdefault(offered, []).append(index)
        for alike in names.values():
            _mark_twins(outcomes, out, alike)
    return out


def _mark_twins(outcomes: Sequence[CaseOutcome], out: list[CaseResult], alike: list[int]) -> None:
    if len(alike) > 1:
        first: dict[str, str] = {}
        for index in alike:
            earlier = first.setdefault(request_identity(outcomes[index].case), out[index].id)
            if earlier != out[index].id:
                out[index] = out[index].model_copy(update={"same_request_as": earlier})

"""The generation run: propose, check, deduplicate, verify in rounds, balance.

Pure stages around two kinds of model call (`ModelLink.propose`, `ModelLink.verify`).
Verification goes in rounds: each tool's best-ranked candidates first, as many as it still
needs, so a tool whose first drafts all agree costs no more verify requests than its quota.
Everything is ordered by tool, kind and the proposer's order, never by arrival, so the same
answers always give the same cases.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from bfcl_action.checker import judge
from bfcl_action.core.records import FunctionDoc, Mode, TestCase
from bfcl_action.generate.checks import format_check, hostile_text
from bfcl_action.generate.diversity import drop_near_duplicates, rank
from bfcl_action.generate.grounding import grounding_check
from bfcl_action.generate.model import BudgetExhausted, ModelLink
from bfcl_action.generate.models import (
    KIND_ORDER,
    Candidate,
    Drop,
    DropReason,
    GenerateResult,
    Kind,
    Review,
    ToolReport,
)
from bfcl_action.generate.prompt import (
    ProposeTask,
    plan_tasks,
    propose_messages,
    response_format,
)
from bfcl_action.generate.proposals import read_proposals
from bfcl_action.model.retry import InfraFailure


@dataclass(frozen=True)
class GenerateOptions:
    per_tool: int = 5
    kinds: tuple[Kind, ...] = KIND_ORDER
    seed: int = 0


def question_text(case: TestCase) -> str:
    """The last user message of a case's first turn (what near-duplicates compare)."""
    users = [m.content or "" for m in case.question[0] if m.role == "user"] if case.question else []
    return users[-1] if users else ""


def plan(
    tools: Sequence[FunctionDoc], targets: Sequence[str], options: GenerateOptions
) -> list[ProposeTask]:
    return plan_tasks(tools, targets, options.kinds, options.per_tool, options.seed)


def check_candidates(
    candidates: Sequence[Candidate], tools: Sequence[FunctionDoc]
) -> tuple[list[Candidate], list[Drop]]:
    """Hostile text, format and grounding, in that order; survivors carry their case."""
    by_name = {t.name: t for t in tools}
    kept: list[Candidate] = []
    drops: list[Drop] = []
    for candidate in candidates:
        drop = hostile_text(candidate) or format_check(candidate, tools)
        if drop is None:
            candidate.checks.append("format")
            drop = grounding_check(candidate, by_name)
        if drop is not None:
            drops.append(drop)
            continue
        candidate.checks.append("grounding")
        kept.append(candidate)
    return kept, drops


def agreement(candidate: Candidate, output: object) -> tuple[bool, str]:
    """Our checker's verdict on the verify model's answer against the proposed expectation."""
    assert candidate.case is not None
    verdict, _ = judge(candidate.case, output, mode=Mode.FC)
    if verdict.valid:
        return True, "agrees"
    detail = "; ".join(verdict.error)
    return False, f"{verdict.error_type or 'disagrees'}: {detail}".rstrip(": ")


async def _propose_all(
    tasks: Sequence[ProposeTask], tools: Sequence[FunctionDoc], link: ModelLink
) -> tuple[list[Candidate], list[Drop], dict[str, int]]:
    fmt = response_format()
    messages = [propose_messages(t, tools) for t in tasks]
    cached = sum(link.is_cached_proposal(m, fmt) for m in messages)
    link.progress.start(len(tasks), cached)

    async def one(task: ProposeTask, msgs: list[dict[str, str]]) -> object:
        try:
            return await link.propose(task.tool, list(msgs), fmt)
        except (InfraFailure, BudgetExhausted) as exc:
            return exc

    try:
        answers = await asyncio.gather(*(one(t, m) for t, m in zip(tasks, messages, strict=True)))
    finally:
        link.progress.finish()
    candidates: list[Candidate] = []
    drops: list[Drop] = []
    proposed: dict[str, int] = {}
    for task, answer in zip(tasks, answers, strict=True):
        if isinstance(answer, Exception):
            drops.append(Drop(task.tool, DropReason.NO_ANSWER, str(answer), count=task.total))
            proposed[task.tool] = proposed.get(task.tool, 0) + task.total
            continue
        found, bad = read_proposals(task, answer.content, answer.refusal)  # type: ignore[attr-defined]
        for drop in bad:
            if not drop.request and drop.reason in {DropReason.REFUSAL, DropReason.MALFORMED_JSON}:
                drop.count = task.total
        candidates.extend(found)
        drops.extend(bad)
        proposed[task.tool] = proposed.get(task.tool, 0) + len(found) + sum(d.count for d in bad)
    return candidates, drops, proposed


async def _verify_rounds(
    ranked: dict[str, list[Candidate]], per_tool: int, link: ModelLink
) -> tuple[list[Candidate], list[Review], list[Drop]]:
    kept: dict[str, list[Candidate]] = {tool: [] for tool in ranked}
    reviews: list[Review] = []
    drops: list[Drop] = []
    queues = {tool: list(cands) for tool, cands in ranked.items()}
    while True:
        batch = [
            c for tool, queue in queues.items() for c in queue[: max(0, per_tool - len(kept[tool]))]
        ]
        if not batch:
            break
        for c in batch:
            queues[c.tool].remove(c)
        cached = 0
        for c in batch:
            assert c.case is not None
            cached += link.is_cached_verification(c.case)
        link.progress.start(len(batch), cached)

        async def one(candidate: Candidate) -> object:
            assert candidate.case is not None
            try:
                return await link.verify(candidate.case)
            except (InfraFailure, BudgetExhausted) as exc:
                return exc

        try:
            outputs = await asyncio.gather(*(one(c) for c in batch))
        finally:
            link.progress.finish()
        for candidate, output in zip(batch, outputs, strict=True):
            if isinstance(output, Exception):
                drops.append(
                    Drop(candidate.tool, DropReason.NO_ANSWER, str(output), candidate.request)
                )
                continue
            agrees, verdict = agreement(candidate, output)
            if agrees:
                candidate.checks.append("agreement")
                kept[candidate.tool].append(candidate)
            else:
                reviews.append(Review(candidate, output, verdict))
        if any(isinstance(o, BudgetExhausted) for o in outputs):
            break
    for queue in queues.values():
        for c in queue:
            drops.append(Drop(c.tool, DropReason.SURPLUS, "tool has its share", c.request))
    return [c for tool in ranked for c in kept[tool]], reviews, drops


async def generate(
    tools: Sequence[FunctionDoc],
    targets: Sequence[str],
    existing: Sequence[TestCase],
    link: ModelLink,
    options: GenerateOptions,
) -> GenerateResult:
    """Draft, check and verify up to `options.per_tool` cases for each target tool."""
    tasks = plan(tools, targets, options)
    candidates, drops, proposed = await _propose_all(tasks, tools, link)
    checked, bad = check_candidates(candidates, tools)
    drops += bad
    unique, dups = drop_near_duplicates(checked, [question_text(c) for c in existing])
    drops += dups
    ranked = {t: rank([c for c in unique if c.tool == t]) for t in targets}
    kept, reviews, late = await _verify_rounds(ranked, options.per_tool, link)
    drops += late
    order = {t: i for i, t in enumerate(targets)}
    kinds = {k: i for i, k in enumerate(KIND_ORDER)}
    kept.sort(key=lambda c: (order[c.tool], kinds[c.kind], c.index))
    reviews.sort(
        key=lambda r: (order[r.candidate.tool], kinds[r.candidate.kind], r.candidate.index)
    )
    reports = {t: ToolReport(t, proposed=proposed.get(t, 0)) for t in targets}
    for c in kept:
        reports[c.tool].kept += 1
    for r in reviews:
        reports[r.candidate.tool].review += 1
    for d in drops:
        report = reports[d.tool]
        report.dropped[d.reason.value] = report.dropped.get(d.reason.value, 0) + d.count
    return GenerateResult(
        kept=kept,
        reviews=reviews,
        drops=drops,
        reports=list(reports.values()),
        requests=link.counters.requests,
        cache_hits=link.counters.cache_hits,
    )

"""What a run would ask and cost, before it asks anything (`bfcl-action run --dry-run`).

Each single-turn request is built exactly as the run would build it and looked up in the
response cache, so "to ask" is what the run would send now (the cache's hit rate for this
selection, not a guess). Tokens are estimated: prompt tokens from the request's size (about
four characters a token), completion tokens from the mean of the cached answers this run
would reuse, else a small default; dollars from `.bfcl.yml`'s `pricing:`. A conversation's
requests depend on its answers, so multi-turn cases are counted by their turns, at least one
request each.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import BaseModel

from bfcl_action.core.categories import is_multi_turn
from bfcl_action.core.cost import PER_TOKENS, Price
from bfcl_action.core.records import TestCase
from bfcl_action.model.cache import ResponseCache
from bfcl_action.runner.chat import ChatBackend

CHARS_PER_TOKEN = 4
DEFAULT_COMPLETION_TOKENS = 60
"""A function call's answer is short; used when no cached answer tells better."""


class RunEstimate(BaseModel):
    cases: int = 0
    requests: int = 0
    """Distinct single-turn requests (identical ones are asked once)."""
    cached: int = 0
    to_ask: int = 0
    conversation_turns: int = 0
    """Turns of multi-turn cases: at least one request each, asked in real time."""
    prompt_tokens: int = 0
    """Of the requests to ask."""
    completion_tokens: int = 0
    completion_source: str = "default"
    """`cache` when the mean of cached answers sized the completions, else `default`."""
    priced_as: str | None = None
    cost_usd: float | None = None
    batch_cost_usd: float | None = None

    def line(self) -> str:
        hit = self.cached / self.requests if self.requests else 0.0
        text = (
            f"dry run: {self.cases} cases, {self.requests} requests: {self.to_ask} to ask, "
            f"{self.cached} answered from the cache ({hit:.0%} hit rate)"
        )
        if self.conversation_turns:
            text += f"; plus {self.conversation_turns} conversation turns (1+ request each)"
        text += (
            f"; about {self.prompt_tokens:,} prompt and {self.completion_tokens:,} completion "
            f"tokens to send (completions sized from the {self.completion_source})"
        )
        if self.cost_usd is None or self.batch_cost_usd is None:
            return text + "; no price for this model (`pricing:` in .bfcl.yml)"
        return (
            f"{text}; estimated cost ${self.cost_usd:.4f} ({self.priced_as}), "
            f"${self.batch_cost_usd:.4f} with --batch"
        )


def estimate_run(
    cases: Sequence[TestCase],
    backend: ChatBackend,
    cache: ResponseCache | None,
    *,
    repeat: int = 1,
    price: tuple[str, Price] | None = None,
) -> RunEstimate:
    """The estimate for asking `cases` through `backend` (pure but for cache reads)."""
    estimate = RunEstimate(cases=len(cases))
    seen: set[str] = set()
    completions: list[int] = []
    for case in cases:
        if is_multi_turn(case.category):
            estimate.conversation_turns += len(case.question) * repeat
            continue
        for sample in range(repeat):
            request, _ = backend.request(case, sample)
            key = backend.client.key(request)
            if key in seen:
                continue
            seen.add(key)
            estimate.requests += 1
            hit = cache.get(key) if cache is not None else None
            if hit is not None:
                estimate.cached += 1
                if hit.output_tokens:
                    completions.append(hit.output_tokens)
                continue
            estimate.to_ask += 1
            size = len(json.dumps(request.messages)) + len(json.dumps(request.tools))
            estimate.prompt_tokens += size // CHARS_PER_TOKEN + 1
    per_answer = DEFAULT_COMPLETION_TOKENS
    if completions:
        per_answer = round(sum(completions) / len(completions))
        estimate.completion_source = "cache"
    estimate.completion_tokens = per_answer * estimate.to_ask
    if price is not None:
        name, rates = price
        dollars = (
            estimate.prompt_tokens * rates.input + estimate.completion_tokens * rates.output
        ) / PER_TOKENS
        estimate.priced_as = name
        estimate.cost_usd = round(dollars, 6)
        estimate.batch_cost_usd = round(dollars * (1 - rates.batch_discount), 6)
    return estimate

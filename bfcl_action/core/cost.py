"""What a run cost: tokens per case from the responses, dollars from `.bfcl.yml`'s `pricing:`.

Two figures, because a cached answer was paid for once, by an earlier run:
- `cost_usd`: what this run paid (answers asked now; a batch answer at the batch discount,
  prompt-cache tokens at their own rate);
- `full_cost_usd`: what the same evaluation costs with nothing reused from the response
  cache (every answer as if asked now, at the rate it was asked at), the figure to plan with.

Prices are US dollars per million tokens, as providers publish them. A run whose model has
no price still reports its tokens; its dollar figures are None.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping

from pydantic import BaseModel, ConfigDict, Field

from bfcl_action.core.records import CaseResult, RunCost

PER_TOKENS = 1_000_000


MAX_PRICE = 1_000_000.0
"""Dollars per million tokens no model costs: a finite bound keeps every cost finite."""


class Price(BaseModel):
    """One model's prices, in US dollars per million tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0, le=MAX_PRICE, allow_inf_nan=False)
    output: float = Field(ge=0, le=MAX_PRICE, allow_inf_nan=False)
    cached_input: float | None = Field(default=None, ge=0, le=MAX_PRICE, allow_inf_nan=False)
    """Prompt tokens served from the provider's prompt cache; default: the input price."""
    batch_discount: float = Field(default=0.5, ge=0, le=1)
    """Share of the price taken off for Batch API answers (OpenAI: half)."""


def price_for(model: str, pricing: Mapping[str, Price]) -> tuple[str, Price] | None:
    """The price entry for `model`: its exact name, else the longest matching glob
    (`gpt-4o-mini*` for dated snapshots), else None."""
    if model in pricing:
        return model, pricing[model]
    matches = [k for k in pricing if fnmatch.fnmatchcase(model, k)]
    if not matches:
        return None
    best = max(matches, key=len)
    return best, pricing[best]


def answer_cost(result: CaseResult, price: Price) -> float:
    """Dollars of one answer at the rate it was (or would be) asked at."""
    inputs = result.input_tokens or 0
    cached = min(result.cached_tokens or 0, inputs)
    cached_rate = price.input if price.cached_input is None else price.cached_input
    dollars = ((inputs - cached) * price.input + cached * cached_rate) + (
        result.output_tokens or 0
    ) * price.output
    if result.batch:
        dollars *= 1 - price.batch_discount
    return dollars / PER_TOKENS


def priced(
    results: Iterable[CaseResult], model: str, pricing: Mapping[str, Price]
) -> tuple[list[CaseResult], str | None]:
    """`results` with `cost_usd` set from `model`'s price, and the entry that priced them
    (None, and results unchanged, when `pricing` has no price for the model)."""
    found = price_for(model, pricing)
    if found is None:
        return list(results), None
    name, price = found
    out = [
        r
        if r.infra_error is not None
        else r.model_copy(update={"cost_usd": round(answer_cost(r, price), 8)})
        for r in results
    ]
    return out, name


def run_cost(results: Iterable[CaseResult], priced_as: str | None = None) -> RunCost:
    """Tokens and dollars over `results` (pure); dollars when the results are priced."""
    cost = RunCost(priced_as=priced_as)
    paid = full = 0.0
    any_price = False
    for result in results:
        if result.infra_error is not None:
            continue
        cost.answers += 1
        cost.reused += result.reused
        cost.batch += result.batch
        cost.input_tokens += result.input_tokens or 0
        cost.output_tokens += result.output_tokens or 0
        cost.cached_tokens += result.cached_tokens or 0
        if result.cost_usd is not None:
            any_price = True
            full += result.cost_usd
            if not result.reused:
                paid += result.cost_usd
    if any_price:
        cost.cost_usd = round(paid, 6)
        cost.full_cost_usd = round(full, 6)
    return cost


def cost_line(cost: RunCost) -> str:
    """One line for a comment footer or a log: tokens, and dollars when priced."""
    tokens = (
        f"{cost.input_tokens:,} prompt tokens ({cost.cached_tokens:,} prompt-cached), "
        f"{cost.output_tokens:,} completion tokens"
    )
    if cost.cost_usd is None or cost.full_cost_usd is None:
        return f"{tokens}; no price for this model (add it under `pricing:` in .bfcl.yml)"
    reused = f", {cost.reused} answers reused from the cache" if cost.reused else ""
    batch = f", {cost.batch} by batch" if cost.batch else ""
    return (
        f"cost ${cost.cost_usd:.4f} this run (${cost.full_cost_usd:.4f} with nothing cached)"
        f"{reused}{batch}; {tokens}"
    )

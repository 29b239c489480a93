"""Diversity: near-duplicate requests dropped, then the verified cases shared out fairly.

Near-duplicates are found with rapidfuzz's `ratio` on lowercased, space-collapsed requests,
at the threshold the Live curation uses for questions (`curation.neardup`'s
`question_threshold`); the MinHash index there pays off for hundreds of thousands of texts,
not for the few dozen a run drafts, and the Action must not need datasketch. Existing cases
count: a draft that repeats a hand-written question is a duplicate.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rapidfuzz import fuzz

from bfcl_action.generate.models import KIND_ORDER, Candidate, Drop, DropReason

DUPLICATE_RATIO = 92.0
"""rapidfuzz ratio (0-100) at or above which two requests are one test."""
_SPACE = re.compile(r"\s+")


def _key(text: str) -> str:
    return _SPACE.sub(" ", text.lower()).strip()


def drop_near_duplicates(
    candidates: Sequence[Candidate], existing: Iterable[str]
) -> tuple[list[Candidate], list[Drop]]:
    """Keep the first of every group of near-identical requests (in the order given)."""
    seen = [_key(q) for q in existing]
    kept: list[Candidate] = []
    drops: list[Drop] = []
    for candidate in candidates:
        key = _key(candidate.request)
        twin = next((s for s in seen if fuzz.ratio(key, s) >= DUPLICATE_RATIO), None)
        if twin is not None:
            drops.append(
                Drop(
                    candidate.tool,
                    DropReason.DUPLICATE,
                    f"near-identical to {twin!r:.80}",
                    candidate.request,
                )
            )
            continue
        seen.append(key)
        kept.append(candidate)
    return kept, drops


def _params(candidate: Candidate) -> frozenset[str]:
    return frozenset(
        f"{name}.{param}"
        for call in candidate.possible_answer()
        for name, ps in call.items()
        for param in ps
    )


def rank(candidates: Sequence[Candidate]) -> list[Candidate]:
    """One tool's candidates in the order they should be verified and kept: round-robin over
    kinds (`KIND_ORDER`), and within a round the candidate exercising parameters not yet
    covered first, so a small quota still spreads over kinds and parameters."""
    by_kind = {k: [c for c in candidates if c.kind is k] for k in KIND_ORDER}
    covered: set[str] = set()
    out: list[Candidate] = []
    while any(by_kind.values()):
        for kind in KIND_ORDER:
            pool = by_kind[kind]
            if not pool:
                continue
            best = max(pool, key=lambda c: (len(_params(c) - covered), -c.index))
            pool.remove(best)
            covered |= _params(best)
            out.append(best)
    return out

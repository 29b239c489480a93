"""Irrelevance and relevance: judged only on whether the output decodes to any call.

Irrelevance cases offer functions that cannot answer the question, so the output is correct
when it holds no call: prose, text that does not decode, an empty list. Relevance cases are
correct when the output holds at least one call; names and arguments are not checked.
"""

from __future__ import annotations

from collections.abc import Sequence

from bfcl_action.checker.verdict import (
    IRRELEVANCE_DECODER_SUCCESS,
    PASS,
    RELEVANCE_DECODER_FAILED,
    CheckVerdict,
    fail,
)
from bfcl_action.core.categories import Checker
from bfcl_action.core.records import Call

_IRRELEVANCE = Checker.IRRELEVANCE


def check_relevance(
    checker: Checker, calls: Sequence[Call] | None, decode_error: str = ""
) -> CheckVerdict:
    """`calls` is what the output decoded to, or None when it did not decode."""
    has_call = bool(calls)
    if checker is _IRRELEVANCE:
        if not has_call:
            return PASS
        names = ", ".join(call.name for call in calls or ())
        return fail(
            IRRELEVANCE_DECODER_SUCCESS,
            f"expected no function call, got {len(calls or ())}: {names}",
        )
    if has_call:
        return PASS
    reason = f" ({decode_error})" if decode_error else ""
    return fail(RELEVANCE_DECODER_FAILED, f"expected at least one function call, got none{reason}")

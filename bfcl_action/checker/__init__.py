"""BFCL's single-turn checker, reimplemented: same verdicts and `error_type`s, pure and fast.

Entry points: `judge` (raw model output in, `Judgement` out: the verdict and the decoded
calls), `judge_decoded` (the same for an already-decoded output, with BFCL's format check),
`check_case` / `check_decoded` (the same as the `CaseResult` reports store), `check_calls`
(decoded calls in, `CheckVerdict` out), `check_ast` (the AST rules without a `TestCase`) and
`needs_underscore_to_dot` (which FC models expect `a_b` for a function `a.b`).
"""

from bfcl_action.checker.ast_check import check_ast, check_call, expected_name
from bfcl_action.checker.case import (
    CheckedCase,
    Judgement,
    check_calls,
    check_case,
    check_decoded,
    judge,
    judge_decoded,
)
from bfcl_action.checker.models_table import needs_underscore_to_dot
from bfcl_action.checker.normalize import normalize_text
from bfcl_action.checker.relevance import check_relevance
from bfcl_action.checker.verdict import CheckVerdict

__all__ = [
    "CheckVerdict",
    "CheckedCase",
    "Judgement",
    "check_ast",
    "check_call",
    "check_calls",
    "check_case",
    "check_decoded",
    "check_relevance",
    "expected_name",
    "judge",
    "judge_decoded",
    "needs_underscore_to_dot",
    "normalize_text",
]

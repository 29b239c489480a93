"""BFCL's single-turn checker, reimplemented: same verdicts and `error_type`s, pure and fast.

Entry points: `check_case` (raw model output in, `CaseResult` out), `check_calls` (decoded
calls in, `Verdict` out), `check_ast` (the AST rules without a `TestCase`) and
`needs_underscore_to_dot` (which FC models expect `a_b` for a function `a.b`).
"""

from bfcl_action.checker.ast_check import check_ast, check_call, expected_name
from bfcl_action.checker.case import check_calls, check_case, check_decoded
from bfcl_action.checker.models_table import needs_underscore_to_dot
from bfcl_action.checker.normalize import normalize_text
from bfcl_action.checker.relevance import check_relevance
from bfcl_action.checker.verdict import Verdict

__all__ = [
    "Verdict",
    "check_ast",
    "check_call",
    "check_calls",
    "check_case",
    "check_decoded",
    "check_relevance",
    "expected_name",
    "needs_underscore_to_dot",
    "normalize_text",
]

"""The checker's answer for one case, and the BFCL `error_type` names it can carry."""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

# BFCL's own error types (the official checker's names, so verdicts compare one to one).
WRONG_COUNT_SIMPLE = "simple_function_checker:wrong_count"
WRONG_FUNC_NAME = "simple_function_checker:wrong_func_name"
MISSING_REQUIRED = "simple_function_checker:missing_required"
UNEXPECTED_PARAM = "simple_function_checker:unexpected_param"
MISSING_OPTIONAL = "simple_function_checker:missing_optional"
WRONG_COUNT_MULTIPLE = "multiple_function_checker:wrong_count"
WRONG_COUNT_PARALLEL = "parallel_function_checker_no_order:wrong_count"
CANNOT_FIND_MATCH = "parallel_function_checker_no_order:cannot_find_match"
TYPE_SIMPLE = "type_error:simple"
TYPE_NESTED = "type_error:nested"
TYPE_JAVA = "type_error:java"
TYPE_JS = "type_error:js"
VALUE_STRING = "value_error:string"
VALUE_LIST = "value_error:list/tuple"
VALUE_DICT_KEY = "value_error:dict_key"
VALUE_DICT_VALUE = "value_error:dict_value"
VALUE_LIST_DICT_COUNT = "value_error:list_dict_count"
VALUE_OTHERS = "value_error:others"
DICT_UNCLEAR = "dict_checker:unclear"
LIST_DICT_UNCLEAR = "list_dict_checker:unclear"
DECODER_FAILED = "ast_decoder:decoder_failed"
DECODER_WRONG_FORMAT = "ast_decoder:decoder_wrong_output_format"
IRRELEVANCE_DECODER_SUCCESS = "irrelevance_error:decoder_success"
RELEVANCE_DECODER_FAILED = "relevance_error:decoder_failed"

# Our own error types, for inputs on which the official checker crashes instead of answering.
INVALID_CASE = "checker:invalid_case"
"""The test case itself is unusable (no possible answer, no function doc for the expected
function, a parameter without a type, a type the language does not know)."""
UNSUPPORTED_CATEGORY = "checker:unsupported_category"
"""The category is unknown or is not checked from a single output (multi-turn)."""
TOO_DEEP = "checker:value_too_deep"
"""An argument nested too deeply for Python to compare (upstream raises RecursionError)."""
INTERNAL_ERROR = "checker:internal_error"
"""A bug in the checker; the case is scored as failed and the message says what happened."""


class CheckVerdict(NamedTuple):
    """Whether the output is accepted; if not, BFCL's `error_type` and readable reasons.

    A named tuple (not pydantic, not a frozen dataclass): the checker builds one per failing
    case and per parallel candidate, and a tuple is the cheapest immutable record Python has.
    """

    valid: bool
    error_type: str | None = None
    error: tuple[str, ...] = ()


PASS = CheckVerdict(True)

_new_verdict = partial(tuple.__new__, CheckVerdict)
"""`CheckVerdict` from a tuple of all its fields, in C (the named tuple's own constructor is
a Python function, and `fail` runs for every failing case)."""


def fail(error_type: str, *messages: str) -> CheckVerdict:
    return _new_verdict((False, error_type, messages))


def show(value: Any, limit: int = 200) -> str:
    """`repr` cut to a readable length, so a 10 MB argument does not flood a report."""
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # too deep, or an int too long to print
        return f"<{type(value).__name__} too large to show>"
    if len(text) > limit:
        return f"{text[:limit]}... ({len(text)} chars)"
    return text

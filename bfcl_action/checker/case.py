"""Checking one case end to end: decode the raw model output, then judge it.

`check_calls` judges calls already decoded; `check_case` starts from what the model returned
(FC tool calls or prompt text) and returns a `CaseResult`. Both are pure and never raise: an
unexpected exception becomes a failed verdict with `error_type` `checker:internal_error`.

The verdict functions (`judge`, `judge_decoded`, `check_calls`) read only the fields of
`CheckedCase`, so a caller that has them without a `TestCase` (`bfcl-action check`, one
line at a time) passes a plain tuple instead of building a pydantic model per line.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, NamedTuple, Protocol

from bfcl_action.checker.agentic import check_agentic
from bfcl_action.checker.ast_check import check_ast
from bfcl_action.checker.relevance import check_relevance
from bfcl_action.checker.variants import variant_of
from bfcl_action.checker.verdict import (
    DECODER_FAILED,
    INTERNAL_ERROR,
    TOO_DEEP,
    UNSUPPORTED_CATEGORY,
    CheckVerdict,
    fail,
)
from bfcl_action.core.categories import CATEGORIES, Category, Checker
from bfcl_action.core.records import (
    Call,
    CaseResult,
    ExpectedCall,
    FunctionDoc,
    Language,
    Mode,
    TestCase,
)
from bfcl_action.decode import DecodeError, decode_output
from bfcl_action.decode.errors import WRONG_OUTPUT_FORMAT
from bfcl_action.decode.return_formats import decode_return_format

_AST, _MULTI_TURN, _AGENTIC = Checker.AST, Checker.MULTI_TURN, Checker.AGENTIC
_PYTHON = Language.PYTHON


class CheckedCase(Protocol):
    """What the checker reads of a case (a `TestCase` has all of it)."""

    @property
    def id(self) -> str: ...
    @property
    def category(self) -> str: ...
    @property
    def functions(self) -> Sequence[FunctionDoc]: ...
    @property
    def possible_answer(self) -> Sequence[ExpectedCall]: ...
    @property
    def answer_texts(self) -> Sequence[str]: ...


def _category(case: CheckedCase) -> Category | CheckVerdict:
    category = CATEGORIES.get(case.category)
    if category is None:
        return fail(UNSUPPORTED_CATEGORY, f"unknown category {case.category!r}")
    if category.checker is _MULTI_TURN:
        return fail(UNSUPPORTED_CATEGORY, f"{case.category} is multi-turn, not checked here")
    return category


def _judge(
    category: Category,
    case: CheckedCase,
    calls: Sequence[Call] | None,
    decode_error: CheckVerdict | None,
    underscore_to_dot: bool,
) -> CheckVerdict:
    if category.checker is not _AST:
        message = " ".join(decode_error.error) if decode_error is not None else ""
        return check_relevance(category.checker, calls, message)
    if decode_error is not None or calls is None:
        return decode_error or fail(DECODER_FAILED, "the output did not decode")
    return check_ast(
        case.functions,
        calls,
        case.possible_answer,
        matching=category.matching,
        language=category.language,
        underscore_to_dot=underscore_to_dot,
    )


def check_calls(
    case: CheckedCase, calls: Sequence[Call], *, underscore_to_dot: bool = False
) -> CheckVerdict:
    """CheckVerdict on decoded `calls` for `case`, as BFCL's checker would give it.

    The category (looked up in `bfcl_action.core.categories`) picks the rule: AST matching
    (simple, multiple, parallel; Python, Java or JavaScript values), irrelevance (no call
    expected) or relevance (some call expected). `underscore_to_dot` expects `a_b` for a
    function named `a.b` (see `needs_underscore_to_dot`).
    """
    try:
        found = _category(case)
        if isinstance(found, CheckVerdict):
            return found
        return _judge(found, case, calls, None, underscore_to_dot)
    except Exception as exc:  # the guard that keeps one odd case from stopping a run
        return _guard_verdict(exc)


def _guard_verdict(exc: Exception) -> CheckVerdict:
    if isinstance(exc, RecursionError):
        return fail(TOO_DEEP, "an argument is nested too deeply to compare")
    return fail(INTERNAL_ERROR, f"checker bug, please report: {type(exc).__name__}: {exc}")


def decode_for(category: Category, model_output: Any, mode: Mode) -> list[Call] | CheckVerdict:
    """Decode as BFCL does for this category: relevance outputs are always read as Python."""
    if (
        type(model_output) is list
        and model_output
        and type(model_output[0]) is Call
        and all(type(item) is Call for item in model_output)
    ):
        return list(model_output)
    language = category.language if category.checker is _AST else _PYTHON
    try:
        return decode_output(model_output, mode=mode, language=language)
    except DecodeError as exc:
        return fail(exc.error_type, exc.message)
    except Exception as exc:  # upstream counts any decoder exception as "did not decode"
        return fail(DECODER_FAILED, f"decoder error: {type(exc).__name__}: {exc}")


class Judgement(NamedTuple):
    """A verdict and the calls the output decoded to (None when it did not decode)."""

    verdict: CheckVerdict
    decoded: list[Call] | None


_new_judgement = partial(tuple.__new__, Judgement)
"""`Judgement` from a tuple of both fields, in C (the named tuple's constructor is a Python
function; `judge` makes one per case)."""


def judge(
    case: CheckedCase,
    model_output: Any,
    *,
    mode: Mode,
    underscore_to_dot: bool = False,
) -> Judgement:
    """Decode `model_output` (raw FC tool calls, prompt text, or a list of `Call`) and judge
    it for `case`: the checker's whole job, without building a report record. Never raises."""
    try:
        category = _category(case)
        if isinstance(category, CheckVerdict):
            return Judgement(category, None)
        if category.checker is _AGENTIC:
            return Judgement(check_agentic(model_output, case.answer_texts, mode), None)
        if category.prompt_variants:
            return _judge_variant(case, model_output, underscore_to_dot)
        outcome = decode_for(category, model_output, mode)
        if isinstance(outcome, list):
            judged = _judge(category, case, outcome, None, underscore_to_dot)
            return _new_judgement((judged, outcome))
        judged = _judge(category, case, None, outcome, underscore_to_dot)
        return _new_judgement((judged, None))
    except Exception as exc:
        return Judgement(_guard_verdict(exc), None)


def _judge_variant(case: CheckedCase, model_output: Any, underscore_to_dot: bool) -> Judgement:
    """A format-sensitivity case: decoded in its configuration's return format (always
    prompt text), matched by the rules of the entry's own category."""
    variant = variant_of(case.id)
    if variant is None:
        return Judgement(fail(UNSUPPORTED_CATEGORY, f"{case.id!r} names no prompt variant"), None)
    config, entry_category = variant
    try:
        calls = decode_return_format(
            model_output, config.return_format, tool_call_tag=config.tool_call_tag
        )
    except DecodeError as exc:
        problem = fail(exc.error_type, exc.message)
        return Judgement(_judge(entry_category, case, None, problem, underscore_to_dot), None)
    except Exception as exc:  # upstream counts any decoder exception as "did not decode"
        problem = fail(DECODER_FAILED, f"decoder error: {type(exc).__name__}: {exc}")
        return Judgement(_judge(entry_category, case, None, problem, underscore_to_dot), None)
    return Judgement(_judge(entry_category, case, calls, None, underscore_to_dot), calls)


def check_case(
    case: TestCase,
    model_output: Any,
    *,
    mode: Mode,
    underscore_to_dot: bool = False,
) -> CaseResult:
    """`judge`, as the `CaseResult` reports store; never raises."""
    verdict, decoded = judge(case, model_output, mode=mode, underscore_to_dot=underscore_to_dot)
    return CaseResult(
        id=case.id,
        category=case.category,
        suite=case.suite,
        valid=verdict.valid,
        error_type=verdict.error_type,
        error=list(verdict.error),
        model_output=model_output,
        decoded=decoded,
    )


def is_call_list(output: Any) -> bool:
    """BFCL's format check for decoded output: `[{function: {parameter: value}}, ...]`."""
    if type(output) is not list:
        return False
    for item in output:  # a loop, not all() over a generator: once per checked line
        if type(item) is not dict or len(item) != 1:
            return False
        for value in item.values():
            if type(value) is not dict:
                return False
    return True


def judge_decoded(case: CheckedCase, output: Any, *, underscore_to_dot: bool = False) -> Judgement:
    """Judge an output that is already decoded (`check --cases` lines, BFCL's checker input).

    For AST categories anything not in BFCL's decoded form is
    `ast_decoder:decoder_wrong_output_format`, as in BFCL's per-entry path; a raw FC result
    read by `check_case` gets `decoder_failed` for the same shapes, as BFCL's FC decoder does.
    """
    category = CATEGORIES.get(case.category)
    if category is None or category.checker is not _AST or is_call_list(output):
        return judge(case, output, mode=Mode.FC, underscore_to_dot=underscore_to_dot)
    verdict = fail(WRONG_OUTPUT_FORMAT, "not a list of {function: {parameter: value}} calls")
    return Judgement(verdict, None)


def check_decoded(case: TestCase, output: Any, *, underscore_to_dot: bool = False) -> CaseResult:
    """`judge_decoded`, as the `CaseResult` reports store; never raises."""
    verdict, decoded = judge_decoded(case, output, underscore_to_dot=underscore_to_dot)
    return CaseResult(
        id=case.id,
        category=case.category,
        suite=case.suite,
        valid=verdict.valid,
        error_type=verdict.error_type,
        error=list(verdict.error),
        model_output=output,
        decoded=decoded,
    )

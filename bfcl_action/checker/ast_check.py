"""BFCL's AST check: decoded calls against the possible answers of one case.

`check_ast` is the whole rule set for the simple, multiple and parallel matchings; the order
of checks (and so which `error_type` a wrong output gets) follows the official checker:

1. count of calls (simple: exactly one; multiple and parallel: as many as answers);
2. per call: the function name (case-sensitive; `a.b` expected as `a_b` with
   `underscore_to_dot`); every schema-required parameter present; then, in the output's
   argument order, each parameter must be in the schema and in the answer, have the right
   type (Java/JS values are converted from source text first) and an accepted value; last,
   every answer parameter left out must list `""` among its options;
3. parallel: answers in order each take the first unmatched call that passes (greedy).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from bfcl_action.checker import java_types, js_types
from bfcl_action.checker.typecheck import (
    PYTHON_TYPE_ALIASES,
    PYTHON_TYPES,
    check_type,
    python_type,
)
from bfcl_action.checker.values import check_dict, check_list, check_list_of_dicts, check_string
from bfcl_action.checker.verdict import (
    CANNOT_FIND_MATCH,
    INVALID_CASE,
    MISSING_OPTIONAL,
    MISSING_REQUIRED,
    PASS,
    TYPE_JAVA,
    TYPE_JS,
    UNEXPECTED_PARAM,
    VALUE_OTHERS,
    WRONG_COUNT_MULTIPLE,
    WRONG_COUNT_PARALLEL,
    WRONG_COUNT_SIMPLE,
    WRONG_FUNC_NAME,
    CheckVerdict,
    fail,
    show,
)
from bfcl_action.core.categories import Matching
from bfcl_action.core.records import Call, ExpectedCall, FunctionDoc, Language

# Enum members bound once: looking one up on its class costs as much as a dict lookup chain.
_PARALLEL, _MULTIPLE = Matching.PARALLEL, Matching.MULTIPLE
_PYTHON, _JAVA = Language.PYTHON, Language.JAVA


def expected_name(name: str, underscore_to_dot: bool) -> str:
    """The function name BFCL expects in the output (dots become underscores for FC models
    whose APIs reject dots)."""
    return name.replace(".", "_") if underscore_to_dot and "." in name else name


def check_ast(
    functions: Sequence[FunctionDoc],
    calls: Sequence[Call],
    answers: Sequence[ExpectedCall],
    *,
    matching: Matching,
    language: Language = Language.PYTHON,
    underscore_to_dot: bool = False,
) -> CheckVerdict:
    """CheckVerdict on `calls` for one AST case (see the module docstring for the rule order)."""
    if matching is _PARALLEL:
        return _check_parallel(functions, calls, answers, language, underscore_to_dot)
    if matching is _MULTIPLE:
        if len(calls) != len(answers):
            return fail(WRONG_COUNT_MULTIPLE, f"expected {len(answers)} call(s), got {len(calls)}")
        if not answers or not answers[0]:
            return fail(INVALID_CASE, "the test case has no possible answer")
        name, expected = next(iter(answers[0].items()))
        doc = _find_doc(functions, name)
        if doc is None:
            return fail(INVALID_CASE, f"no function doc named {name!r} for the expected call")
        return check_call(doc, calls[0], expected, language, underscore_to_dot)
    if len(calls) != 1:
        return fail(WRONG_COUNT_SIMPLE, f"expected exactly 1 call, got {len(calls)}")
    if not functions or not answers or not answers[0]:
        return fail(INVALID_CASE, "the test case has no function doc or no possible answer")
    # Upstream checks a simple case against the first function doc, whatever the answer's name.
    expected = next(iter(answers[0].values()))
    return check_call(functions[0], calls[0], expected, language, underscore_to_dot)


def _find_doc(functions: Sequence[FunctionDoc], name: str) -> FunctionDoc | None:
    for doc in functions:
        if doc.name == name:
            return doc
    return None


def _check_parallel(
    functions: Sequence[FunctionDoc],
    calls: Sequence[Call],
    answers: Sequence[ExpectedCall],
    language: Language,
    underscore_to_dot: bool,
) -> CheckVerdict:
    if len(calls) != len(answers):
        return fail(WRONG_COUNT_PARALLEL, f"expected {len(answers)} call(s), got {len(calls)}")
    used = [False] * len(calls)
    for position, answer in enumerate(answers):
        if not answer:
            return fail(INVALID_CASE, f"possible answer #{position} names no function")
        name, expected = next(iter(answer.items()))
        doc = _find_doc(functions, name)
        if doc is None:
            return fail(INVALID_CASE, f"no function doc named {name!r} for the expected call")
        want = expected_name(doc.name, underscore_to_dot)
        reasons: dict[int, CheckVerdict] = {}
        for index, call in enumerate(calls):
            # A call to another function cannot match: skip it without building a verdict.
            if used[index] or call.name != want:
                continue
            verdict = check_call(doc, call, expected, language, underscore_to_dot)
            if verdict.valid:
                used[index] = True
                break
            reasons[index] = verdict
        else:
            remaining = [index for index, done in enumerate(used) if not done]
            tried = []
            for index in remaining:
                got = calls[index].name
                verdict = reasons.get(index) or fail(
                    WRONG_FUNC_NAME, f"expected a call to {want!r}, got {got!r}"
                )
                tried.append(
                    f"call #{index} {got}: {verdict.error_type}: {' '.join(verdict.error)}"
                )
            return fail(
                CANNOT_FIND_MATCH,
                f"no call among #{remaining} matches expected call #{position} ({name})",
                *tried,
            )
    return PASS


def check_call(
    doc: FunctionDoc,
    call: Call,
    expected: dict[str, list[Any]],
    language: Language = Language.PYTHON,
    underscore_to_dot: bool = False,
) -> CheckVerdict:
    """One call against one function doc and one answer's parameter options."""
    name = doc.name
    if underscore_to_dot and "." in name:
        name = name.replace(".", "_")
    if call.name != name:
        return fail(WRONG_FUNC_NAME, f"expected a call to {name!r}, got {call.name!r}")
    parameters = doc.parameters
    properties: dict[str, Any] = parameters.get("properties") or _NO_PROPERTIES
    arguments = call.arguments
    required = parameters.get("required")
    if required:
        for param in required:
            if param not in arguments:
                return fail(MISSING_REQUIRED, f"{name}: missing required parameter {param!r}")
    python = language is _PYTHON
    verbatim = _NO_TYPES if python else _VERBATIM_TYPES[language]
    for param, value in arguments.items():
        spec = properties.get(param, _ABSENT)
        options = expected.get(param, _ABSENT)
        if spec is _ABSENT or options is _ABSENT:
            why = "function's schema" if param not in properties else "expected answer"
            return fail(
                UNEXPECTED_PARAM, f"{name}: unexpected parameter {param!r} (not in the {why})"
            )
        # Fast paths for scalars given exactly as one of the options: every rule accepts
        # them (normalising both sides keeps equal strings equal).
        if type(spec) is dict:
            type_name = spec.get("type")
            if python and type(type_name) is str:
                scalar = _PYTHON_SCALARS.get(type_name)
                if scalar is not None:
                    if scalar is float and type(value) is int:
                        with contextlib.suppress(OverflowError):  # too big: stays an int
                            value = float(value)
                    if type(value) is scalar and value in options:
                        continue
            elif type(value) is str and type_name in verbatim and value in options:
                continue
        verdict = _check_argument(name, param, value, spec, options, language)
        if verdict is not None:
            return verdict
    for param, options in expected.items():
        if param not in arguments and "" not in options:
            return fail(
                MISSING_OPTIONAL,
                f"{name}: parameter {param!r} left out, but the answer requires one of "
                f"{show(options)}",
            )
    return PASS


_NO_PROPERTIES: dict[str, Any] = {}
_ABSENT: Any = object()
_NO_TYPES: frozenset[str] = frozenset()
_VERBATIM_TYPES: dict[Language, frozenset[str]] = {
    Language.JAVA: frozenset({"any", "String", "char"}),
    Language.JAVASCRIPT: frozenset({"any"}),
}
"""Java/JS types whose source text is the value itself (no conversion)."""
_SCALAR_TYPES = (str, int, float, bool)
_PYTHON_SCALARS: dict[Any, type] = {
    name: found
    for name in (*PYTHON_TYPES, *PYTHON_TYPE_ALIASES)
    if (resolved := python_type(name)) is not None
    and (found := resolved[1]) in (str, int, float, bool)
}
"""Schema type names whose values are scalars (no item, dict or list rules apply)."""


def _check_argument(
    name: str, param: str, value: Any, spec: Any, options: list[Any], language: Language
) -> CheckVerdict | None:
    """None if the argument is accepted, else the verdict."""
    where = f"{name}: {param}"
    type_name = spec.get("type") if isinstance(spec, dict) else None
    if not isinstance(type_name, str):
        return fail(INVALID_CASE, f"{where}: the schema gives no type name ({show(spec)})")
    items = spec.get("items")
    item_name = items.get("type") if isinstance(items, dict) else None
    item_type: type | None = None
    if language is _PYTHON:
        resolved = python_type(type_name)
        if resolved is None:
            return fail(INVALID_CASE, f"{where}: unknown type {type_name!r} in the schema")
        type_name, expected = resolved
        if type_name in ("array", "tuple") and isinstance(item_name, str):
            item_resolved = python_type(item_name)
            item_type = None if item_resolved is None else item_resolved[1]
        if type_name == "tuple" and type(value) is tuple:
            value = list(value)
        if type_name == "float" and type(value) is int:
            with contextlib.suppress(OverflowError):  # too big for a float: stays an int
                value = float(value)
    else:
        java = language is _JAVA
        table = java_types.JAVA_TYPES if java else js_types.JS_TYPES
        collections = java_types.COLLECTION_TYPES if java else js_types.COLLECTION_TYPES
        found = table.get(type_name)
        if found is None:
            return fail(INVALID_CASE, f"{where}: unknown {language.value} type {type_name!r}")
        expected = found
        if type(value) is not str:
            return fail(
                TYPE_JAVA if java else TYPE_JS,
                f"{where}: expected {language.value} source text (a string) for type "
                f"{type_name}, got {type(value).__name__} {show(value)}",
            )
        convert = java_types.convert_java if java else js_types.convert_js
        if type_name in collections:
            item_type = table.get(item_name) if isinstance(item_name, str) else None
            if item_type is None:
                return fail(INVALID_CASE, f"{where}: {type_name} without a known item type")
            value = convert(value, type_name, item_name)
        else:
            value = convert(value, type_name)
    scalar = item_type is None and expected in _SCALAR_TYPES and type(value) is expected
    if scalar and value in options:  # accepted by every rule below
        return None
    outcome = check_type(where, value, options, type_name, expected, item_type)
    if outcome.verdict is not None:
        return outcome.verdict
    if not outcome.is_variable:
        verdict: CheckVerdict | None = None
        if expected is dict:
            verdict = check_dict(where, value, options)
        elif expected is list and item_type is dict:
            verdict = check_list_of_dicts(where, value, options)
        elif expected is str:
            verdict = check_string(where, value, options)
        elif expected is list:
            verdict = check_list(where, value, options)
        if verdict is not None:
            return None if verdict.valid else verdict
    if value in options:
        return None
    return fail(VALUE_OTHERS, f"{where}: got {show(value)}, expected one of {show(options)}")

"""An authored answer -> BFCL's possible answer: the one reading own cases and Live share.

People write expected calls by hand twice in this project: a team's own cases (`expect:` in
a case file, `bfcl_action.cases.own`) and a Live contribution (`ground_truth:`, `curation/`). Both
must mean the same thing, so an own case and a Live item written from the same answer hold
the same possible answer and are graded alike. The rules (docs/own-tools.md):

- A parameter's value is a list of acceptable options, where `""` means "may be left out",
  or a plain value (one option).
- For an array parameter a list is *one* value unless all its items are lists or `""`
  (`tags: [a, b]` is one value; `tags: [[a], ""]` is "either `[a]` or omitted").
- For an object parameter a mapping is one value whose inner values follow the same rules,
  each read against its own property schema.

Beyond the conversion this module owns what "a fair answer" means for both: every option
has the type and enum value the schema allows (`option_problem`), a required parameter is
never only omittable (`call_problems`), the answer passes the very checker that will grade
the model (`checker_objection`), and the category follows from the calls expected and tools
offered (`call_shape`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from bfcl_action.checker import check_calls, normalize_text
from bfcl_action.checker.answers import concrete_calls
from bfcl_action.core.categories import CATEGORIES, Checker
from bfcl_action.core.records import ExpectedCall, FunctionDoc, TestCase
from bfcl_action.tools.issues import describe
from bfcl_action.tools.validate import matches_type, schema_types

OMIT = ""
"""Among a parameter's options: the model may leave the parameter out."""

_ARRAY_TYPES = {"array", "tuple", "list"}
_OBJECT_TYPES = {"dict", "object"}


def call_shape(n_offered: int, n_calls: int | None) -> str:
    """The category shape of an answer: BFCL's rule, shared by `own_*` and `live_*` names.

    `None` calls means "some call, whatever it is" (relevance); `0` no call (irrelevance);
    one call is simple with one function offered and multiple with more; several calls are
    parallel with one function offered and parallel_multiple with more.
    """
    if n_calls is None:
        return "relevance"
    if n_calls == 0:
        return "irrelevance"
    if n_calls == 1:
        return "simple" if n_offered == 1 else "multiple"
    return "parallel" if n_offered == 1 else "parallel_multiple"


def to_options(value: Any, schema: Mapping[str, Any]) -> list[Any]:
    """One parameter's authored value -> BFCL's option list (rules in the module docstring)."""
    types = schema_types(dict(schema)) or []
    is_array = any(t in _ARRAY_TYPES for t in types)
    is_object = any(t in _OBJECT_TYPES for t in types)
    if isinstance(value, list):
        if is_array and not (value and all(isinstance(v, list) or v == OMIT for v in value)):
            return [_array_value(value, schema)]
        if is_array:
            return [_array_value(v, schema) if isinstance(v, list) else v for v in value]
        if is_object:
            return [_object_option(v, schema) if isinstance(v, dict) else v for v in value]
        return list(value)
    if isinstance(value, dict) and is_object:
        return [_object_option(value, schema)]
    return [value]


def _array_value(value: list[Any], schema: Mapping[str, Any]) -> list[Any]:
    """One array value: its object items hold an option list per key, as BFCL's checker
    compares a list of dicts (`[{"lat": 27.9}]` is written `[{"lat": [27.9]}]`)."""
    items = schema.get("items")
    if not isinstance(items, dict):
        return value
    item_types = schema_types(dict(items)) or []
    if not any(t in _OBJECT_TYPES for t in item_types):
        return value
    return [_object_option(v, items) if isinstance(v, dict) else v for v in value]


def _object_option(value: dict[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    props = schema.get("properties") or {}
    out: dict[str, Any] = {}
    for key, inner in value.items():
        sub = props.get(key) if isinstance(props, dict) else None
        out[key] = to_options(inner, sub if isinstance(sub, dict) else {})
    return out


def call_options(args: Mapping[str, Any] | None, function: FunctionDoc | None) -> dict[str, Any]:
    """Every authored argument of one call as an option list, read against its schema.

    A parameter the schema does not know is read with no schema (a list is options); the
    checks (`call_problems`) report it.
    """
    props = _properties(function)
    return {p: to_options(v, _schema(props, p)) for p, v in (args or {}).items()}


def expected_calls(
    authored: Iterable[Mapping[str, Mapping[str, Any] | None]], functions: Iterable[FunctionDoc]
) -> list[ExpectedCall]:
    """Authored calls (`[{name: {param: value-or-options}}]`) in BFCL's possible-answer form."""
    by_name = {f.name: f for f in functions}
    return [
        {name: call_options(args, by_name.get(name))}
        for call in authored
        for name, args in call.items()
    ]


def option_problem(option: Any, schema: Mapping[str, Any]) -> str | None:
    """Why a model value equal to `option` could never be accepted, or None.

    `""` (may be omitted) and `None` (null accepted) are always fine; an integer is accepted
    for a float parameter (BFCL's rule). Enum values and array item types are checked too:
    an answer the schema forbids is a broken test even when BFCL's checker would take it
    (BFCL accepts an option of another type by exact membership, so a model that follows
    the schema could never pass). A string option that equals an enum value once the
    checker's normalisation is applied (`"New-York"` for `"new york"`) is fine: the
    enum-following output passes.
    """
    if option == OMIT or option is None:
        return None
    types = schema_types(dict(schema))
    if types and not any(matches_type(option, t) for t in types):
        return f"expected type {' or '.join(types)}"
    enum = schema.get("enum")
    if isinstance(enum, list) and not _in_enum(option, enum):
        return "not one of the enum values " + ", ".join(repr(e) for e in enum[:10])
    items = schema.get("items")
    if isinstance(option, list) and isinstance(items, dict):
        for item in option:
            reason = option_problem(item, items)
            if reason:
                return f"array item {item!r}: {reason}"
    return None


def _in_enum(option: Any, enum: list[Any]) -> bool:
    """`option` is an enum value (after the checker's normalisation), or an array whose
    every item is one: BFCL's data puts an array's allowed item values in the array's own
    `enum`."""
    if option in enum or _enum_match(option, enum):
        return True
    return isinstance(option, list) and all(v in enum or _enum_match(v, enum) for v in option)


class AnswerProblem(NamedTuple):
    """One reason an authored call cannot be a fair answer.

    `code` is stable (curation counts drops by it); `param` is None for a problem of the
    call as a whole; `key` says the problem is the parameter's name, not its value.
    """

    code: str
    message: str
    param: str | None = None
    expected: str | None = None
    found: str | None = None
    key: bool = False


def call_problems(options: Mapping[str, list[Any]], function: FunctionDoc) -> list[AnswerProblem]:
    """Every problem of one expected call (already in option-list form) against its schema."""
    props = _properties(function)
    required = [r for r in function.parameters.get("required") or [] if isinstance(r, str)]
    problems: list[AnswerProblem] = []
    for param, opts in options.items():
        schema = props.get(param)
        if not isinstance(schema, dict):
            problems.append(
                AnswerProblem(
                    "unknown_parameter",
                    f"parameter is not in {function.name}'s schema",
                    param,
                    expected="one of " + (", ".join(props) or "no parameters"),
                    found=repr(param),
                    key=True,
                )
            )
            continue
        if not opts:
            problems.append(
                AnswerProblem(
                    "empty_options",
                    "empty option list",
                    param,
                    expected="at least one acceptable value",
                )
            )
            continue
        for i, option in enumerate(opts):
            reason = option_problem(option, schema)
            if reason:
                problems.append(
                    AnswerProblem(
                        "answer_type_mismatch",
                        f"option {i + 1} cannot pass: {reason}",
                        param,
                        found=describe(option),
                    )
                )
        if param in required and all(o == OMIT for o in opts):
            problems.append(
                AnswerProblem(
                    "required_omittable",
                    "required parameter may only be omitted ('')",
                    param,
                    expected="at least one value besides ''",
                )
            )
    for param in required:
        if param not in options:
            problems.append(
                AnswerProblem(
                    "missing_required",
                    f"required parameter {param!r} of {function.name} is missing, "
                    "so no answer can pass",
                    expected=f"{param}: <value or options>",
                )
            )
    return problems


def checker_objection(case: TestCase) -> str | None:
    """The checker's objection to a case's answer, or None when some output passes it.

    Two concrete outputs are tried: every parameter's first real option, then the same with
    every omittable parameter left out; the answer is fair when either passes. Only AST
    categories are checked (relevance and irrelevance answers are not argument lists).
    """
    if not case.possible_answer:
        return None
    category = CATEGORIES.get(case.category)
    if category is not None and category.checker is not Checker.AST:
        return None
    errors: list[str] = []
    for omit in (False, True):
        verdict = check_calls(case, concrete_calls(case.possible_answer, omit_optional=omit))
        if verdict.valid:
            return None
        errors.append(f"{verdict.error_type}: {'; '.join(verdict.error)}")
    return errors[0]


def _enum_match(option: Any, enum: list[Any]) -> bool:
    return isinstance(option, str) and normalize_text(option) in {
        normalize_text(e) for e in enum if isinstance(e, str)
    }


def _properties(function: FunctionDoc | None) -> dict[str, Any]:
    props = function.parameters.get("properties") if function is not None else None
    return props if isinstance(props, dict) else {}


def _schema(props: Mapping[str, Any], param: str) -> Mapping[str, Any]:
    schema = props.get(param)
    return schema if isinstance(schema, dict) else {}


__all__ = [
    "OMIT",
    "AnswerProblem",
    "call_options",
    "call_problems",
    "call_shape",
    "checker_objection",
    "expected_calls",
    "option_problem",
    "to_options",
]

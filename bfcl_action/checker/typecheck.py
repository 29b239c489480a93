"""BFCL's type check of one argument value against the schema type and the answer's options.

The rule, observed from the official checker:

- The value must have exactly the Python type the schema names (`True` is not an integer,
  `1` is not a boolean, `3.0` is not an integer).
- "Variable" answers: when the first non-`""` option has another type than the schema says
  (e.g. a string naming a variable where the schema wants a dict), a value of the options'
  type is accepted too, and the value is then compared by exact membership (no string
  normalisation, no dict/list rules).
- Arrays (and Java/JS collections) check their items' type one level deep: the items must
  all have the item type, or the type of the first element of some list option. A non-list
  option (typically `""`) satisfies the item check on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from bfcl_action.checker.verdict import TYPE_NESTED, TYPE_SIMPLE, CheckVerdict, fail, show

PYTHON_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
"""BFCL's Python type names. Upstream crashes on any other name."""

PYTHON_TYPE_ALIASES: dict[str, str] = {
    "number": "float",
    "object": "dict",
    "list": "array",
    "bool": "boolean",
    "str": "string",
    "int": "integer",
    "double": "float",
    "long": "integer",
}
"""JSON-Schema and Python spellings that own tools use; BFCL's data never has them (and its
checker would crash), so accepting them changes no official verdict."""


def python_type(name: str) -> tuple[str, type] | None:
    """Canonical BFCL name and Python type for a schema type name, or None if unknown."""
    canonical = PYTHON_TYPE_ALIASES.get(name, name)
    found = PYTHON_TYPES.get(canonical)
    return None if found is None else (canonical, found)


def options_type(options: list[Any]) -> type | None:
    """Type of the first option that is not `""` (the "may be omitted" marker)."""
    for option in options:
        if not (type(option) is str and option == ""):
            return type(option)
    return None


@dataclass(frozen=True, slots=True)
class TypeOutcome:
    verdict: CheckVerdict | None
    """None when the type is acceptable."""
    is_variable: bool = False


_OK = TypeOutcome(None, False)
_OK_VARIABLE = TypeOutcome(None, True)


def _items_fit(value: list[Any], option: list[Any], item_type: type) -> bool:
    alternative = options_type(option)
    for item in value:
        kind = type(item)
        if kind is not item_type and (alternative is None or kind is not alternative):
            return False
    return True


def check_type(
    where: str,
    value: Any,
    options: list[Any],
    type_name: str,
    expected: type,
    item_type: type | None,
) -> TypeOutcome:
    """Type-check `value` (already converted) for parameter `where`; see the module rule."""
    answer_type = options_type(options)
    is_variable = answer_type is not None and answer_type is not expected
    nested_failed = False
    if type(value) is expected:
        if item_type is None:
            return _OK_VARIABLE if is_variable else _OK
        for option in options:
            if type(option) is not list or _items_fit(cast(list[Any], value), option, item_type):
                return _OK_VARIABLE if is_variable else _OK
        nested_failed = True
    nested_message = (
        f"{where}: expected {type_name} of {item_type.__name__ if item_type else '?'} items, "
        f"got {show(value)}"
    )
    if answer_type is not None and type(value) is answer_type:
        if nested_failed:
            return TypeOutcome(fail(TYPE_NESTED, nested_message), True)
        return _OK_VARIABLE
    message = f"{where}: expected type {type_name}, got {type(value).__name__} {show(value)}"
    if nested_failed:
        return TypeOutcome(fail(TYPE_SIMPLE, nested_message, message))
    return TypeOutcome(fail(TYPE_SIMPLE, message))

"""BFCL's value comparisons for strings, lists, dicts and lists of dicts.

Every comparison is membership in the answer's option list after normalising strings on both
sides (`normalize_text`); numbers, booleans and nested values use Python equality (so `5 ==
5.0`, and a dict nested inside a dict is compared whole, without normalisation).
"""

from __future__ import annotations

from typing import Any

from bfcl_action.checker.normalize import normalize_text
from bfcl_action.checker.verdict import (
    DICT_UNCLEAR,
    LIST_DICT_UNCLEAR,
    PASS,
    TYPE_NESTED,
    VALUE_DICT_KEY,
    VALUE_DICT_VALUE,
    VALUE_LIST,
    VALUE_LIST_DICT_COUNT,
    VALUE_STRING,
    CheckVerdict,
    fail,
    show,
)


def _norm(value: Any) -> Any:
    return normalize_text(value) if type(value) is str else value


def _norm_sequence(option: Any) -> list[Any] | None:
    """An option as a normalised list; strings count as sequences of characters (as upstream
    indexes them), anything else cannot equal a list."""
    if type(option) is list or type(option) is tuple or type(option) is str:
        return [_norm(item) for item in option]
    return None


def check_string(where: str, value: str, options: list[Any]) -> CheckVerdict:
    wanted = normalize_text(value)
    for option in options:
        if type(option) is str and normalize_text(option) == wanted:
            return PASS
    return fail(
        VALUE_STRING,
        f"{where}: got {show(value)}, expected one of {show(options)} "
        "(compared ignoring case, spaces and ,./-_*^)",
    )


def check_list(where: str, value: list[Any], options: list[Any]) -> CheckVerdict:
    wanted = [_norm(item) for item in value]
    for option in options:
        if _norm_sequence(option) == wanted:
            return PASS
    return fail(VALUE_LIST, f"{where}: got {show(value)}, expected one of {show(options)}")


def _allows_absent(option_values: Any) -> bool:
    try:
        return "" in option_values
    except TypeError:
        return False


def _dict_against(where: str, value: dict[Any, Any], option: dict[Any, Any]) -> CheckVerdict | None:
    """None if `value` matches this one option dict, else why not."""
    messages: list[str] = []
    error_type: str | None = None
    for key, item in value.items():
        if key not in option:
            messages.append(f"{where}: unexpected key {show(key)}")
            error_type = VALUE_DICT_KEY
            break
        allowed = _norm_sequence(option[key])
        if allowed is None or _norm(item) not in allowed:
            messages.append(
                f"{where}[{key!r}]: got {show(item)}, expected one of {show(option[key])}"
            )
            error_type = VALUE_DICT_VALUE
            break
    for key, allowed_values in option.items():
        if key not in value and not _allows_absent(allowed_values):
            messages.append(f"{where}: missing key {show(key)}")
            error_type = VALUE_DICT_KEY
            break
    if error_type is None:
        return None
    return CheckVerdict(False, error_type, tuple(messages))


def check_dict(where: str, value: Any, options: list[Any]) -> CheckVerdict:
    """Match a dict against each option dict; the last option's failure is reported.

    Within one option, an unexpected key or wrong value is reported unless a required key is
    also missing, which then wins (upstream checks missing keys last and overwrites). With no
    option dict at all (only `""`), a given dict fails as `dict_checker:unclear`.
    """
    outcome = fail(DICT_UNCLEAR, f"{where}: no dict among the expected options {show(options)}")
    for option in options:
        if type(option) is str and option == "":
            continue
        if type(value) is not dict:  # only reachable inside a list of dicts
            return fail(TYPE_NESTED, f"{where}: expected a dict, got {show(value)}")
        if type(option) is not dict:
            outcome = fail(VALUE_DICT_KEY, f"{where}: expected option {show(option)} is no dict")
            continue
        why = _dict_against(where, value, option)
        if why is None:
            return PASS
        outcome = why
    return outcome


def check_list_of_dicts(where: str, value: list[Any], options: list[Any]) -> CheckVerdict:
    """Each option is a list of option dicts matched position by position, same length."""
    outcome = fail(LIST_DICT_UNCLEAR, f"{where}: no expected options")
    for option in options:
        if not (type(option) is list or type(option) is tuple or type(option) is str):
            outcome = fail(VALUE_LIST_DICT_COUNT, f"{where}: expected option {show(option)}")
            continue
        size = len(option)
        if len(value) != size:
            outcome = fail(
                VALUE_LIST_DICT_COUNT,
                f"{where}: got {len(value)} dicts, expected {size} ({show(option)})",
            )
            continue
        matched = True
        for index, item in enumerate(value):
            outcome = check_dict(f"{where}[{index}]", item, [option[index]])
            if not outcome.valid:
                matched = False
                break
        if matched:
            return PASS
    return outcome

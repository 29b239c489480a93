"""The cheap check before the walk (`budget.within_limits`) never lets a value over a limit
through: whenever it says a text is within the limits, the full walk agrees, and
`loads_json` gives the same verdict as a parse followed by the full walk."""

import contextlib
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bfcl_action.core.errors import InputError
from bfcl_action.safety.budget import (
    BudgetError,
    ParseBudget,
    check_value,
    loads_json,
    within_limits,
)
from bfcl_action.safety.jsonl import scan_jsonl

# Small limits, so generated values reach them often.
SMALL = ParseBudget(max_depth=4, max_nodes=12, max_int_digits=3)

_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text('ab1[{"\\', max_size=4),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=2), inner, max_size=4)
    ),
    max_leaves=24,
)


def _walk_verdict(value: Any, budget: ParseBudget) -> str | None:
    try:
        check_value(value, budget=budget)
    except BudgetError as exc:
        return exc.message
    return None


@given(_values, st.booleans())
@settings(max_examples=400, deadline=None)
def test_within_limits_only_when_the_walk_passes(value: Any, as_bytes: bool) -> None:
    text = json.dumps(value, separators=(",", ":"))
    raw: str | bytes = text.encode() if as_bytes else text
    if within_limits(raw, SMALL):
        assert _walk_verdict(value, SMALL) is None


@given(_values)
@settings(max_examples=400, deadline=None)
def test_loads_json_agrees_with_parse_then_walk(value: Any) -> None:
    text = json.dumps(value)
    expected = _walk_verdict(json.loads(text), SMALL)
    try:
        assert loads_json(text.encode(), budget=SMALL) == value
    except BudgetError as exc:
        assert expected is not None, exc.message
    else:
        assert expected is None


@given(st.text(max_size=60))
@settings(max_examples=300, deadline=None)
def test_arbitrary_text_is_a_value_or_an_input_error(text: str) -> None:
    with contextlib.suppress(InputError):  # an InputError is the only failure allowed
        loads_json(text, budget=SMALL)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 200 + "]" * 200, "nesting deeper than 128 levels"),
        ('{"a": ' * 129 + "1" + "}" * 129, "nesting deeper than 128 levels"),
        ("[" + "7" * 1001 + "]", "integer over 1000 digits"),
        ("[" + ",".join(["0"] * 200_001) + "]", "over 200000 values"),
    ],
)
def test_each_limit_still_holds_with_the_cheap_check(text: str, message: str) -> None:
    """One text per limit, just over it: the cheap check sends it to the full walk."""
    assert not within_limits(text)
    with pytest.raises(BudgetError, match=message):
        loads_json(text)
    (line,) = scan_jsonl(text, objects=False)
    assert line.error is not None and message.split(" ")[0] in line.error


def test_just_under_each_limit_loads() -> None:
    deep = "[" * 127 + "]" * 127
    digits = "[" + "7" * 1000 + "]"
    assert loads_json(deep) is not None and loads_json(digits) == [int("7" * 1000)]
    assert within_limits(deep) and within_limits(digits)


def test_many_brackets_nested_shallowly_are_within_the_limits() -> None:
    """Over `max_depth` brackets in all, but few open at once (outside strings): the cheap
    check still passes the text, and a text nested deeply behind an escaped quote does not."""
    assert within_limits("[" + ",".join(["[1]"] * 300) + "]")
    assert within_limits(json.dumps(["[{" * 300, {"a": ["]"] * 200}]).encode())
    escaped = '["\\"", ' + "[" * 128 + "]" * 129
    assert not within_limits(escaped)
    with pytest.raises(BudgetError, match="nesting deeper"):
        loads_json(escaped)

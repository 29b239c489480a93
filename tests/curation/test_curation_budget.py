"""Curation's budgets (the shared `bfcl_action.safety.budget`) never let another exception out."""

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bfcl_action.core.errors import InputError
from curation.budget import BudgetExceeded, check_value, load_json

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab"\\[]{}x ', max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=20,
)


@given(_json)
@settings(max_examples=200, deadline=None)
def test_json_within_budget_loads_to_the_same_value(value: Any) -> None:
    assert load_json(json.dumps(value)) == value


@given(st.text(max_size=200))
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_loads_or_is_a_budget_or_input_error(text: str) -> None:
    try:
        load_json(text)
    except BudgetExceeded as exc:
        assert exc.reason in {"too_large", "too_deep", "number_too_large"}
    except InputError:
        pass


def test_reasons_name_the_budget() -> None:
    deep = "[" * 500 + "]" * 500
    for text, reason in ((deep, "too_deep"), ("[" + "9" * 5000 + "]", "number_too_large")):
        try:
            load_json(text)
        except BudgetExceeded as exc:
            assert exc.reason == reason
        else:
            raise AssertionError(text[:20])
    try:
        check_value({"functions": [{"parameters": {"$defs": {"A": {"$ref": "#/$defs/A"}}}}]})
    except BudgetExceeded as exc:
        assert exc.reason == "ref_cycle"

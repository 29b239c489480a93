"""The raw-text budgets agree with the parsed value and never raise anything else."""

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from curation.budget import BudgetExceeded, check_json_text, nesting_depth

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab"\\[]{}x ', max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=20,
)


def _depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


@given(_json)
@settings(max_examples=200, deadline=None)
def test_nesting_depth_of_the_text_is_the_depth_of_the_value(value: Any) -> None:
    assert nesting_depth(json.dumps(value)) == _depth(value)


@given(st.text(max_size=200))
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_passes_or_is_a_budget_error(text: str) -> None:
    try:
        check_json_text(text)
    except BudgetExceeded as exc:
        assert exc.reason in {"too_large", "too_deep", "number_too_large"}

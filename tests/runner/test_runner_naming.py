"""Function names the API forbids are mapped to allowed ones and back, per function set."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bfcl_action.model.naming import NameMap, is_api_name


def test_allowed_names_are_kept_as_they_are() -> None:
    names = NameMap.for_names(["get_weather", "a-b"])
    assert names.api_name("get_weather") == "get_weather"
    assert names.identity


def test_dotted_name_maps_to_underscores_and_back() -> None:
    names = NameMap.for_names(["math.factorial"])
    assert names.api_name("math.factorial") == "math_factorial"
    assert names.original("math_factorial") == "math.factorial"


def test_dotted_name_does_not_collide_with_an_existing_underscore_name() -> None:
    names = NameMap.for_names(["a_b", "a.b"])
    assert names.api_name("a_b") == "a_b"
    assert names.api_name("a.b") != "a_b"
    assert names.original(names.api_name("a.b")) == "a.b"


def test_invented_name_is_returned_unchanged() -> None:
    assert NameMap.for_names(["f"]).original("g") == "g"


@given(st.lists(st.text(min_size=1, max_size=90), min_size=1, max_size=8, unique=True))
def test_every_name_maps_to_a_distinct_api_name_that_maps_back(originals: list[str]) -> None:
    names = NameMap.for_names(originals)
    api = [names.api_name(n) for n in originals]
    assert all(is_api_name(a) for a in api)
    assert len(set(api)) == len(api)
    assert [names.original(a) for a in api] == originals

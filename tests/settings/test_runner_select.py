"""Case selection is a pure function of ids and the seed: shards partition, samples repeat."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bfcl_action.core.errors import ConfigError
from bfcl_action.settings.select import select_cases
from tests.support.runner import make_case

CASES = [make_case(f"simple_python_{i}", "q") for i in range(200)] + [
    make_case(f"irrelevance_{i}", "q", category="irrelevance") for i in range(50)
]


def ids(cases: list) -> list[str]:  # type: ignore[type-arg]
    return [c.id for c in cases]


def test_shards_partition_the_cases() -> None:
    shards = [ids(select_cases(CASES, shard=f"{i}/4")) for i in range(1, 5)]
    assert sorted(i for shard in shards for i in shard) == sorted(ids(CASES))
    assert all(shards)


def test_shard_membership_does_not_depend_on_input_order() -> None:
    forward = set(ids(select_cases(CASES, shard="2/3")))
    backward = set(ids(select_cases(list(reversed(CASES)), shard="2/3")))
    assert forward == backward


def test_same_seed_gives_the_same_sample_and_another_seed_a_different_one() -> None:
    first = ids(select_cases(CASES, sample=20, seed=7))
    again = ids(select_cases(list(reversed(CASES)), sample=20, seed=7))
    other = ids(select_cases(CASES, sample=20, seed=8))
    assert len(first) == 20
    assert sorted(first) == sorted(again)
    assert set(first) != set(other)


def test_shards_of_a_sample_partition_that_sample() -> None:
    sample = set(ids(select_cases(CASES, sample=30, seed=1)))
    shards = [set(ids(select_cases(CASES, sample=30, seed=1, shard=f"{i}/3"))) for i in (1, 2, 3)]
    assert set().union(*shards) == sample
    assert sum(len(s) for s in shards) == 30


def test_categories_and_id_pattern_filter() -> None:
    chosen = select_cases(CASES, categories=["irrelevance"], id_pattern=r"_1\d$")
    assert ids(chosen) == [f"irrelevance_{i}" for i in range(10, 20)]


@pytest.mark.parametrize("spec", ["0/4", "5/4", "x", "1/0"])
def test_bad_shard_is_a_config_error(spec: str) -> None:
    with pytest.raises(ConfigError, match="shard"):
        select_cases(CASES, shard=spec)


@given(
    st.lists(st.from_regex(r"[a-z_]{1,12}_[0-9]{1,4}", fullmatch=True), unique=True, max_size=60),
    st.integers(min_value=1, max_value=7),
)
def test_any_ids_split_into_n_disjoint_shards_covering_them_all(ids_: list[str], n: int) -> None:
    cases = [make_case(i, "q") for i in ids_]
    shards = [ids(select_cases(cases, shard=f"{k}/{n}")) for k in range(1, n + 1)]
    flat = [i for shard in shards for i in shard]
    assert sorted(flat) == sorted(ids_)

"""Statistics against published and hand-computed values."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bfcl_action.compare.stats import binomial_cdf_half, mcnemar_exact, wilson_interval

# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I,
# method 3 (score interval without continuity correction), plus the textbook 8/10.
NEWCOMBE = [
    (8, 10, 0.4902, 0.9433),
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
    (29, 29, 0.8830, 1.0000),
]


@pytest.mark.parametrize(("successes", "n", "low", "high"), NEWCOMBE)
def test_wilson_interval_matches_published_values(
    successes: int, n: int, low: float, high: float
) -> None:
    got = wilson_interval(successes, n)
    assert got == (pytest.approx(low, abs=5e-5), pytest.approx(high, abs=5e-5))


def test_wilson_interval_without_observations_is_uninformative() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_interval_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_mcnemar_one_against_nine_is_22_over_1024() -> None:
    # 2 * P(X <= 1), X ~ Bin(10, 1/2) = 2 * (1 + 10) / 2**10
    assert mcnemar_exact(1, 9) == 22 / 1024


def test_mcnemar_two_against_ten_by_hand() -> None:
    # 2 * (C(12,0) + C(12,1) + C(12,2)) / 2**12 = 2 * 79 / 4096
    assert mcnemar_exact(2, 10) == 158 / 4096


def test_mcnemar_without_discordant_pairs_is_one() -> None:
    assert mcnemar_exact(0, 0) == 1.0


def test_mcnemar_balanced_flips_are_not_evidence() -> None:
    assert mcnemar_exact(5, 5) == 1.0


def test_mcnemar_is_exact_for_large_suites() -> None:
    assert mcnemar_exact(2500, 2500) == 1.0
    assert 0 < mcnemar_exact(2400, 2600) < 0.01


def test_binomial_cdf_edges() -> None:
    assert binomial_cdf_half(-1, 4) == 0.0
    assert binomial_cdf_half(4, 4) == 1.0
    assert binomial_cdf_half(0, 4) == 1 / 16


@given(st.integers(0, 300), st.integers(0, 300))
def test_mcnemar_is_symmetric_and_a_probability(b: int, c: int) -> None:
    p = mcnemar_exact(b, c)
    assert 0 < p <= 1
    assert p == mcnemar_exact(c, b)


@given(st.integers(1, 2000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_contains_the_observed_proportion(pair: tuple[int, int]) -> None:
    successes, n = pair
    low, high = wilson_interval(successes, n)
    assert 0 <= low <= successes / n <= high <= 1


def test_six_questions_moving_one_way_is_the_fewest_that_can_be_significant() -> None:
    from bfcl_action.compare.stats import fewest_for_significance, sign_test

    assert fewest_for_significance(0.05) == 6
    assert sign_test(5, 0) >= 0.05 > sign_test(6, 0)
    assert fewest_for_significance(0.01) == 8

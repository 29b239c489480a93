"""Small, exact statistics for comparing two runs on the same cases (pure Python).

Accuracy intervals use the Wilson score interval, which stays inside [0, 1] and behaves for
small suites and scores near 0 or 1 (where the normal approximation does not). The paired
test is the exact McNemar test: under "no change", each discordant case (passed in one run,
failed in the other) is equally likely to flip either way, so the number of newly failing
cases among the discordant ones is Binomial(b + c, 1/2). Python integers are exact, so the
tail sum is exact for any suite size.

Cases are not always independent: a derived case re-asks its own case's question (distractor
variants, `--repeat` samples). `sign_test` is the same exact binomial tail applied to
*clusters* (every case derived from one question), each counted once by the sign of its net
change, so a question that flips in seven variants is one piece of evidence, not seven
(Dixon & Mood 1946; see docs/compare.md). `holm` adjusts the p-values of several suites
tested at once so that the chance of flagging any unchanged suite stays at most `alpha`
(Holm 1979).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Z_95 = 1.959963984540054
"""Two-sided 95% quantile of the standard normal distribution."""


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a proportion; `(0.0, 1.0)` when there is no observation."""
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # At 0 and n the bounds are exactly 0 and 1; rounding must not move them.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def binomial_cdf_half(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2), exactly (big integers, one final division)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    term = total = 1  # C(n, 0); each next term is exact: C(n, i+1) = C(n, i) * (n-i) / (i+1)
    for i in range(k):
        term = term * (n - i) // (i + 1)
        total += term
    return total / (1 << n)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts.

    `b` cases passed in base and failed in head, `c` the reverse. With no discordant case
    there is no evidence of change and the p-value is 1.
    """
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be >= 0, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    return min(1.0, 2 * binomial_cdf_half(min(b, c), n))


def sign_test(regressed: int, improved: int) -> float:
    """Two-sided exact sign test on clusters: `regressed` clusters whose net change is
    negative, `improved` positive (clusters with no net change carry no evidence).

    Under "no change" the two runs are exchangeable within every cluster, so each cluster
    with a net change is equally likely to have moved either way, independently of the
    others, whatever the correlation inside a cluster: Binomial(regressed + improved, 1/2),
    the McNemar computation on clusters. With one case per cluster it *is* McNemar's test.
    """
    return mcnemar_exact(regressed, improved)


def fewest_for_significance(alpha: float) -> int:
    """The fewest clusters that must all move the same way before the two-sided sign test
    can fall below `alpha` (6 at 0.05): with fewer, no change can be significant."""
    n = 1
    while sign_test(n, 0) >= alpha and n < 64:
        n += 1
    return n


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given (Holm 1979).

    Sorted ascending, the j-th smallest (1-based) of m becomes
    `max over i <= j of min(1, (m - i + 1) * p_(i))`. Rejecting every hypothesis whose
    adjusted p is below `alpha` controls the family-wise error rate at `alpha` under any
    dependence between the tests.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def percentile(values: Sequence[float], q: float) -> float | None:
    """The `q` quantile of `values` with linear interpolation between closest ranks."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low, high = math.floor(position), math.ceil(position)
    share = position - low
    return ordered[low] + (ordered[high] - ordered[low]) * share

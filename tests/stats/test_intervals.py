"""Wilson intervals: statsmodels' numbers, the textbook formula they replaced, and the edges."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from polistemics.stats.errors import StatisticsError
from polistemics.stats.intervals import product_interval, wilson_interval, wilson_intervals

TOLERANCE = 1e-9
Z_95 = 1.959963984540054  # the constant of the hand-written formula this module replaced


def textbook_wilson(successes: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval as the project computed it before statsmodels (clipped)."""
    p = successes / n
    denominator = 1 + z**2 / n
    centre = (p + z**2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def test_wilson_interval_matches_statsmodels():
    for successes, n in ((0, 10), (3, 10), (437, 5754), (10, 10), (1, 1)):
        low, high = wilson_interval(successes, n)
        ref_low, ref_high = proportion_confint(successes, n, alpha=0.05, method="wilson")
        assert abs(low - ref_low) < TOLERANCE and abs(high - ref_high) < TOLERANCE
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    with pytest.raises(StatisticsError):
        wilson_interval(5, 3)


@pytest.mark.parametrize("n", [1, 2, 3, 10, 30, 97, 500, 5754])
def test_equals_the_textbook_formula_to_rounding(n: int) -> None:
    for successes in sorted({0, 1, n // 3, n // 2, n - 1, n, 0.4 * n, n / 7}):
        ours = wilson_interval(successes, n)
        theirs = textbook_wilson(successes, n)
        assert ours == pytest.approx(theirs, abs=1e-12, rel=0)


def test_bounds_stay_in_the_unit_interval() -> None:
    for n in (1, 5, 50, 5000):
        for successes in (0, n):
            low, high = wilson_interval(successes, n)
            assert 0.0 <= low <= high <= 1.0
    assert wilson_interval(5, 5)[1] == 1.0


@pytest.mark.parametrize("n", range(1, 400))
def test_a_rate_of_0_or_1_is_its_own_bound_exactly(n: int) -> None:
    """Rounding in the formula leaves bounds like 5.55e-17 or 0.9999999999999998 (n = 3 gives
    both in some implementations), and a bar from the rate to such a bound has a negative
    length: matplotlib refused to draw the mechanisms figure of a pilot with it."""
    assert wilson_interval(0, n)[0] == 0.0
    assert wilson_interval(n, n)[1] == 1.0
    low, high = wilson_intervals(np.array([0.0, float(n)]), np.array([float(n), float(n)]))
    assert low[0] == 0.0 and high[1] == 1.0


def test_fractional_successes_are_an_effective_count() -> None:
    low, high = wilson_interval(2.5, 10)
    ref_low, ref_high = proportion_confint(2.5, 10, alpha=0.05, method="wilson")
    assert (low, high) == (ref_low, ref_high)


def test_other_levels() -> None:
    low90, high90 = wilson_interval(30, 100, alpha=0.10)
    low95, high95 = wilson_interval(30, 100)
    assert low95 < low90 < 0.3 < high90 < high95


def test_columns_equal_the_scalar_calls_exactly() -> None:
    rng = np.random.default_rng(3)
    n = rng.integers(0, 200, size=300)
    n[:5] = 0
    successes = np.floor(rng.random(300) * (n + 1))
    low, high = wilson_intervals(successes, n)
    for k, m, lo, hi in zip(successes, n, low, high, strict=True):
        expected = wilson_interval(float(k), int(m))
        if m == 0:
            assert math.isnan(lo) and math.isnan(hi) and all(map(math.isnan, expected))
        else:
            assert (lo, hi) == expected
    with pytest.raises(StatisticsError):
        wilson_intervals(np.array([3.0]), np.array([2.0]))
    with pytest.raises(StatisticsError):
        wilson_intervals(np.array([1.0, 2.0]), np.array([2.0]))


@pytest.mark.parametrize("n", [4, 5, 12, 40, 400])
def test_correlation_interval_is_scipys_fisher_z_interval(n: int) -> None:
    import numpy as np
    from scipy.stats import pearsonr

    from polistemics.stats import correlation_interval

    rng = np.random.default_rng(n)
    x = rng.integers(0, 2, n)
    y = np.where(rng.random(n) < 0.7, x, 1 - x)
    if x.std() == 0 or y.std() == 0:
        x[0], y[0], x[1], y[1] = 0, 0, 1, 1
    found = pearsonr(x, y)
    expected = found.confidence_interval(0.95)
    assert correlation_interval(found.statistic, n) == pytest.approx((expected.low, expected.high))


def test_correlation_interval_is_undefined_for_three_pairs_or_an_undefined_r() -> None:
    import math

    from polistemics.stats import correlation_interval

    assert all(math.isnan(v) for v in correlation_interval(0.5, 3))
    assert all(math.isnan(v) for v in correlation_interval(float("nan"), 50))
    assert correlation_interval(1.0, 10) == (1.0, 1.0)


@pytest.mark.parametrize(
    ("s_a", "n_a", "s_b", "n_b"), [(30, 40, 18, 25), (5, 9, 70, 71), (40, 40, 18, 25), (1, 3, 2, 7)]
)
def test_product_interval_has_the_log_ratio_variance_statsmodels_gives(s_a, n_a, s_b, n_b):
    from statsmodels.stats.proportion import confint_proportions_2indep

    low, high = product_interval(s_a, n_a, s_b, n_b)
    ratio_low, ratio_high = confint_proportions_2indep(
        s_a, n_a, s_b, n_b, method="log", compare="ratio"
    )
    half = (math.log(ratio_high) - math.log(ratio_low)) / 2
    product = (s_a / n_a) * (s_b / n_b)
    assert low == pytest.approx(product * math.exp(-half), rel=1e-12)
    assert high == pytest.approx(min(1.0, product * math.exp(half)), rel=1e-12)
    assert low <= product <= high <= 1.0


def test_product_interval_edges() -> None:
    assert product_interval(10, 10, 4, 4) == (1.0, 1.0)  # both certain: no spread
    assert all(math.isnan(v) for v in product_interval(0, 10, 4, 5))  # log 0 is undefined
    assert all(math.isnan(v) for v in product_interval(3, 0, 4, 5))
    with pytest.raises(StatisticsError):
        product_interval(6, 5, 1, 2)


@pytest.mark.parametrize("standard_error", ["bonett_wright", "fieller"])
@pytest.mark.parametrize("n", [5, 12, 40, 400])
def test_spearman_interval_is_scipys_fisher_z_interval_of_the_ranks_widened(
    n: int, standard_error: str
) -> None:
    """Spearman's rho is Pearson's r of the ranks; scipy's Fisher-z interval of that r has the
    half-width z / sqrt(n - 3) on the atanh scale, Bonett-Wright's is sqrt(1 + rho^2 / 2) times
    it around the same centre, Fieller-Hartley-Pearson's sqrt(1.06) times."""
    import numpy as np
    from scipy.stats import pearsonr, rankdata, spearmanr

    from polistemics.stats import spearman_interval

    rng = np.random.default_rng(n)
    x = rng.normal(size=n)
    y = 0.5 * x + rng.normal(size=n)
    rho = spearmanr(x, y).statistic
    ranks = pearsonr(rankdata(x), rankdata(y))
    assert ranks.statistic == pytest.approx(rho)
    expected = ranks.confidence_interval(0.95)
    scipy_half = (np.arctanh(expected.high) - np.arctanh(expected.low)) / 2
    low, high = spearman_interval(rho, n, standard_error=standard_error)
    widening = np.sqrt(1.06) if standard_error == "fieller" else np.sqrt(1 + rho**2 / 2)
    assert (np.arctanh(low) + np.arctanh(high)) / 2 == pytest.approx(np.arctanh(rho))
    assert (np.arctanh(high) - np.arctanh(low)) / 2 == pytest.approx(scipy_half * widening)


def test_spearman_interval_agrees_with_scipys_bootstrap_of_rho() -> None:
    import numpy as np
    from scipy.stats import bootstrap, spearmanr

    from polistemics.stats import spearman_interval

    rng = np.random.default_rng(7)
    x = rng.normal(size=300)
    y = 0.6 * x + rng.normal(size=300)
    rho = spearmanr(x, y).statistic
    ref = bootstrap(
        (x, y),
        lambda a, b: spearmanr(a, b).statistic,
        paired=True,
        vectorized=False,
        n_resamples=2000,
        method="bca",
        random_state=np.random.default_rng(3),
    ).confidence_interval
    low, high = spearman_interval(rho, 300)
    assert low == pytest.approx(ref.low, abs=0.02)
    assert high == pytest.approx(ref.high, abs=0.02)


def test_spearman_interval_is_undefined_for_three_pairs_or_an_undefined_rho() -> None:
    import math

    from polistemics.stats import spearman_interval

    assert all(math.isnan(v) for v in spearman_interval(0.5, 3))
    assert all(math.isnan(v) for v in spearman_interval(float("nan"), 50))
    assert spearman_interval(-1.0, 10) == (-1.0, -1.0)

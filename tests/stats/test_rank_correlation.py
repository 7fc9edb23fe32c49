"""Exact rank-correlation p-values below 10 items, checked against scipy's own exact Kendall
test and scipy's permutation test with scipy's statistics (not the vectorised ones)."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest
from scipy.stats import kendalltau, permutation_test, spearmanr

from polistemics.stats.rank_correlation import ASYMPTOTIC, EXACT, rank_correlation


def scipy_exact(x, y, which: str) -> float:
    """Every ordering of y, scipy's statistic per ordering (slow, fine for n <= 6)."""
    measure = spearmanr if which == "spearman" else kendalltau
    return permutation_test(
        (y,),
        lambda ordering: measure(x, ordering).statistic,
        permutation_type="pairings",
        n_resamples=np.inf,
    ).pvalue


def test_three_ranks_in_the_same_order_cannot_give_p_zero() -> None:
    found = rank_correlation([0.9, 0.8, 0.7], [0.95, 0.85, 0.6])
    assert found.spearman == 1.0 and found.kendall == 1.0
    # 1 of the 3! orderings is as extreme in each direction: two-sided p = 2/6.
    assert found.spearman_p == pytest.approx(1 / 3)
    assert found.kendall_p == pytest.approx(1 / 3)
    assert found.p_method == EXACT
    assert spearmanr([0.9, 0.8, 0.7], [0.95, 0.85, 0.6]).pvalue == 0  # what was printed before


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_exact_p_values_match_scipy_without_ties(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(8):
        x = rng.random(n)
        y = x + rng.normal(0, 0.3, n)
        found = rank_correlation(x, y)
        assert found.spearman == pytest.approx(spearmanr(x, y).statistic, abs=1e-12)
        assert found.kendall == pytest.approx(kendalltau(x, y).statistic, abs=1e-12)
        assert found.kendall_p == pytest.approx(kendalltau(x, y, method="exact").pvalue, abs=1e-12)
        assert found.spearman_p == pytest.approx(scipy_exact(x, y, "spearman"), abs=1e-12)
        assert found.kendall_p == pytest.approx(scipy_exact(x, y, "kendall"), abs=1e-12)


def test_exact_p_values_with_ties_match_scipy_permutations() -> None:
    rng = np.random.default_rng(5)
    for n in (4, 5, 6):
        for _ in range(6):
            x = rng.integers(0, 3, n).astype(float)
            y = rng.integers(0, 3, n).astype(float)
            if len(set(x)) == 1 or len(set(y)) == 1:
                continue
            found = rank_correlation(x, y)
            assert found.spearman_p == pytest.approx(scipy_exact(x, y, "spearman"), abs=1e-12)
            assert found.kendall_p == pytest.approx(scipy_exact(x, y, "kendall"), abs=1e-12)


def test_nine_items_enumerate_every_ordering() -> None:
    x = np.arange(9.0)
    y = np.array([1, 0, 2, 3, 5, 4, 6, 8, 7], dtype=float)
    found = rank_correlation(x, y)
    assert found.p_method == EXACT
    assert found.kendall_p == pytest.approx(kendalltau(x, y, method="exact").pvalue, abs=1e-12)
    # The exact null distribution of rho over all 9! orderings, counted directly.
    orderings = np.array(list(permutations(range(9))), dtype=float)
    centred = orderings - 4.0
    rhos = centred @ (x - 4.0) / ((x - 4.0) @ (x - 4.0))
    rho = spearmanr(x, y).statistic
    tail = min(np.mean(rhos >= rho - 1e-12), np.mean(rhos <= rho + 1e-12))
    assert found.spearman_p == pytest.approx(min(1.0, 2 * tail), abs=1e-12)


def test_ten_items_use_scipys_asymptotic_p_values() -> None:
    rng = np.random.default_rng(1)
    x, y = rng.random(10), rng.random(10)
    found = rank_correlation(x, y)
    assert found.p_method == ASYMPTOTIC
    assert found.spearman_p == spearmanr(x, y).pvalue
    assert found.kendall_p == kendalltau(x, y).pvalue

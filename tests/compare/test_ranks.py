"""compare.ranks.agreement: rho's 95% interval beside the coefficients."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import pearsonr, rankdata, spearmanr

from polistemics.compare.ranks import agreement


def test_rho_interval_is_the_fisher_z_interval_of_the_ranks_widened_by_bonett_wright() -> None:
    rng = np.random.default_rng(5)
    items = [f"m{i}" for i in range(12)]
    a = pd.Series(rng.normal(size=12), index=items)
    b = pd.Series(0.7 * a.to_numpy() + rng.normal(size=12), index=items)
    found = agreement(a, b, descending=True)
    rho = spearmanr(a, b).statistic
    assert found["spearman"] == pytest.approx(rho)
    # scipy's Fisher-z interval of the ranks' Pearson r, widened by sqrt(1 + rho^2 / 2)
    scipy_ci = pearsonr(rankdata(a), rankdata(b)).confidence_interval(0.95)
    scipy_half = (np.arctanh(scipy_ci.high) - np.arctanh(scipy_ci.low)) / 2
    low, high = found["spearman_ci_low"], found["spearman_ci_high"]
    assert low < rho < high
    assert (np.arctanh(high) - np.arctanh(low)) / 2 == pytest.approx(
        scipy_half * np.sqrt(1 + rho**2 / 2)
    )


def test_rho_has_no_interval_below_four_items() -> None:
    a = pd.Series([0.9, 0.5, 0.1], index=["x", "y", "z"])
    b = pd.Series([0.8, 0.6, 0.2], index=["x", "y", "z"])
    found = agreement(a, b, descending=True)
    assert found["spearman"] == pytest.approx(1.0)
    assert found["spearman_ci_low"] is None and found["spearman_ci_high"] is None

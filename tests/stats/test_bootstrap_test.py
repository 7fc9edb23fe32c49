"""The bootstrap-z p-value against statsmodels' Wald test of two independent proportions, and
its edge cases."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm
from statsmodels.stats import proportion

from polistemics.stats.bootstrap import resample_weights
from polistemics.stats.bootstrap_test import bootstrap_z_pvalues


def resampled_rate(outcomes: np.ndarray, rng: np.random.Generator, resamples: int) -> np.ndarray:
    """Row 0 the rate, then one rate per resample (the project's bootstrap engine)."""
    weights = resample_weights(rng, len(outcomes), resamples)
    return weights @ outcomes / weights.sum(axis=1)


@pytest.mark.parametrize(
    ("n_a", "rate_a", "n_b", "rate_b"),
    [(400, 0.8, 350, 0.72), (300, 0.5, 300, 0.42), (500, 0.9, 450, 0.93)],
)
def test_matches_statsmodels_wald_test_of_two_proportions(n_a, rate_a, n_b, rate_b) -> None:
    rng = np.random.default_rng(n_a)
    a = (rng.random(n_a) < rate_a).astype(float)
    b = (rng.random(n_b) < rate_b).astype(float)
    draws_a = resampled_rate(a, rng, 20_000)
    draws_b = resampled_rate(b, rng, 20_000)
    estimate = draws_b[0] - draws_a[0]
    found = bootstrap_z_pvalues(np.array([estimate]), (draws_b[1:] - draws_a[1:])[:, None])[0]
    wald = proportion.test_proportions_2indep(
        b.sum(), n_b, a.sum(), n_a, method="wald", compare="diff", correction=False
    )
    # The bootstrap SE estimates the Wald SE: z agrees to within the Monte-Carlo error.
    z_found = norm.isf(found / 2)
    assert z_found == pytest.approx(abs(wald.statistic), rel=0.03)
    assert found == pytest.approx(wald.pvalue, rel=0.15, abs=1e-4)


def test_p_value_is_two_sided_normal_tail_of_estimate_over_draw_sd() -> None:
    rng = np.random.default_rng(3)
    draws = rng.normal(0.05, 0.02, size=(5000, 2))
    estimates = np.array([0.05, -0.01])
    expected = 2 * norm.sf(np.abs(estimates) / draws.std(axis=0, ddof=1))
    assert np.allclose(bootstrap_z_pvalues(estimates, draws), expected, rtol=1e-12)


def test_edge_cases_claim_no_certainty_they_do_not_have() -> None:
    draws = np.array([[0.0, 0.5, np.nan, 0.1], [0.0, 0.5, np.nan, np.nan], [0.0, 0.5, np.nan, 0.3]])
    found = bootstrap_z_pvalues(np.array([0.0, 0.5, np.nan, 0.2]), draws)
    assert found[0] == 1.0  # no difference, no spread: nothing to find
    assert np.isnan(found[1])  # a difference with no spread: the bootstrap cannot say how sure
    assert np.isnan(found[2])  # no estimate
    # NaN draws (resamples without data) are left out: the SD of 0.1 and 0.3.
    assert found[3] == pytest.approx(2 * norm.sf(0.2 / np.std([0.1, 0.3], ddof=1)))
    assert bootstrap_z_pvalues(np.zeros(0), np.zeros((5, 0))).shape == (0,)

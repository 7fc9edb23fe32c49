"""A p-value from the same bootstrap as an interval: the bootstrap-z (Wald) test.

For an estimate with bootstrap draws, z = estimate / SE, where SE is the standard deviation of
the draws (ddof = 1; Efron & Tibshirani 1993, ch. 12 and 16), and the two-sided p-value is
2 * (1 - Phi(|z|)) (scipy's normal survival function).

Why not the share of draws beyond 0 (the percentile interval inverted)? That p-value cannot go
below about 2 / resamples (0.002 with 1000), so after a correction over m rows (Holm needs
p < alpha / m, 0.0003 for 171 rows) nothing could ever be significant. The z-test needs only the
draws' spread, resamples the same units as the interval, and gives p-values a correction over
many rows can use. It relies on a normal approximation: the comparison warns where a row rests
on fewer than 30 observations.

Edge cases: an estimate of 0 gives p = 1 (also when the draws have no spread: both sides
identical); a non-zero estimate whose draws have no spread (each side constant, e.g. every
observation passes on one side and fails on the other) gives NaN: the bootstrap cannot tell how
sure it is, and no p-value is claimed; a NaN estimate gives NaN.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm


def bootstrap_z_pvalues(estimates: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Per column of ``draws`` (resamples x columns; NaN draws left out), the two-sided
    bootstrap-z p-value of ``estimates`` (one per column)."""
    estimates = np.asarray(estimates, dtype=float)
    draws = np.asarray(draws, dtype=float)
    p_values = np.full(estimates.shape, np.nan)
    if not estimates.size:
        return p_values
    finite = ~np.isnan(draws)
    count = finite.sum(axis=0)
    filled = np.where(finite, draws, 0.0)
    mean = filled.sum(axis=0) / np.maximum(count, 1)
    squares = np.where(finite, (draws - mean) ** 2, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(squares / (count - 1))
        z = np.abs(estimates) / se
    spread = (count > 1) & (se > 0) & np.isfinite(se)
    p_values[spread] = 2 * norm.sf(z[spread])
    p_values[estimates == 0] = 1.0
    return p_values

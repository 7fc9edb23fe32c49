"""Percentile bootstrap of pass-rate totals, vectorised: one matrix product per stratum.

The resampling unit is the observation. ``observation_matrix`` sums one side's cells into
observations x columns matrices of passes and cells; ``resample_weights`` draws how often each
observation appears in each resample (row 0 is the full data: every weight 1), and
``weights @ matrix`` gives every resample's totals at once. A paired comparison applies the same
weights to both sides (the same observations, in the same order); an unpaired one draws each
side's weights on its own.
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

DEFAULT_RESAMPLES = 1000
DEFAULT_CONFIDENCE = 0.95


def stratum_rng(seed: int, *names: str) -> np.random.Generator:
    """A generator seeded from ``seed`` and the stratum's names, so that one stratum's draws do
    not depend on which other strata are compared."""
    return np.random.default_rng([seed, *(zlib.crc32(name.encode("utf-8")) for name in names)])


def resample_weights(rng: np.random.Generator, n_obs: int, n_resamples: int) -> np.ndarray:
    """(1 + n_resamples) x n_obs counts: row 0 all ones (the estimate), then one row per
    resample of ``n_obs`` observations drawn with replacement."""
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    draws = rng.integers(0, n_obs, size=(n_resamples, n_obs))
    offsets = (np.arange(n_resamples) * n_obs)[:, None]
    counts = np.bincount((draws + offsets).ravel(), minlength=n_resamples * n_obs)
    return np.vstack([np.ones((1, n_obs)), counts.reshape(n_resamples, n_obs)])


def observation_matrix(
    obs_codes: np.ndarray, col_codes: np.ndarray, values: np.ndarray, n_obs: int, n_cols: int
) -> np.ndarray:
    """n_obs x n_cols sums of ``values`` by (observation, column)."""
    flat = np.bincount(
        obs_codes * n_cols + col_codes, weights=values.astype(float), minlength=n_obs * n_cols
    )
    return flat.reshape(n_obs, n_cols)


def percentile_ci(
    draws: np.ndarray, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[np.ndarray, np.ndarray]:
    """Per column of ``draws`` (resamples x columns), the percentile interval; NaN draws (a
    resample without cells in that column) are left out, an all-NaN column gives NaN."""
    if not 0 < confidence < 1:
        raise ValueError("confidence must lie in (0, 1)")
    tail = (1 - confidence) / 2 * 100
    if draws.shape[1] == 0:
        return np.zeros(0), np.zeros(0)
    with np.errstate(invalid="ignore"):
        finite = ~np.isnan(draws)
        low = np.full(draws.shape[1], np.nan)
        high = np.full(draws.shape[1], np.nan)
        some = finite.any(axis=0)
        if some.any():
            # nanpercentile warns on all-NaN columns; compute only where there is data
            bounds = np.nanpercentile(draws[:, some], [tail, 100 - tail], axis=0)
            low[some], high[some] = bounds[0], bounds[1]
    return low, high


def codes(values: pd.Series | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted factorisation: integer codes and the distinct values."""
    found, uniques = pd.factorize(np.asarray(values), sort=True)
    return found, np.asarray(uniques)

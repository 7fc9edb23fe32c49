"""The project's one bootstrap engine: percentile intervals from weighted resample totals.

The resampling unit is the observation. ``observation_matrix`` sums values into an
observations x columns matrix; ``resample_weights`` draws how often each observation appears in
each resample (row 0 is the full data: every weight 1), so ``weights @ matrix`` gives every
resample's column totals at once. ``percentile_ci`` turns the resampled statistics into
percentile intervals. A stratum's generator (``stratum_rng``) is seeded from the seed and the
stratum's names, so its draws do not depend on which other strata are computed.

Callers decide what a stratum, a column and a statistic are (``scoring.bootstrap``: the indices
of one model; ``compare.deltas``: paired or unpaired differences between two sides).
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from polistemics.stats.defaults import DEFAULT_CONFIDENCE
from polistemics.stats.defaults import DEFAULT_RESAMPLES as DEFAULT_RESAMPLES
from polistemics.stats.errors import StatisticsError


def check_bootstrap_settings(n_resamples: int, confidence: float) -> None:
    """Raise ``StatisticsError`` unless ``n_resamples >= 1`` and ``confidence`` is in (0, 1)."""
    _check_resamples(n_resamples)
    _check_confidence(confidence)


def _check_resamples(n_resamples: int) -> None:
    if n_resamples < 1:
        raise StatisticsError("n_resamples must be at least 1")


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise StatisticsError("confidence must lie in (0, 1)")


def stratum_rng(seed: int, *names: str) -> np.random.Generator:
    """A generator seeded from ``seed`` and the CRC-32 of each of the stratum's names."""
    return np.random.default_rng([seed, *(zlib.crc32(name.encode("utf-8")) for name in names)])


def resample_weights(rng: np.random.Generator, n_obs: int, n_resamples: int) -> np.ndarray:
    """(1 + n_resamples) x n_obs counts: row 0 all ones (the estimate), then one row per
    resample of ``n_obs`` observations drawn with replacement (the numbers of one
    ``rng.integers`` call for every draw, drawn a resample at a time)."""
    _check_resamples(n_resamples)
    weights = np.empty((n_resamples + 1, n_obs))
    weights[0] = 1.0
    # Drawn and counted a resample at a time into the result: no matrix of the draws, nor of
    # the counts (four matrices of this size at once before, 150 MB at 4,000 observations).
    # The generator gives the same numbers as one call for every draw at once, in this order.
    for row in range(1, n_resamples + 1):
        weights[row] = np.bincount(rng.integers(0, n_obs, size=n_obs), minlength=n_obs)
    return weights


def resampled_totals(
    rng: np.random.Generator, n_resamples: int, *matrices: np.ndarray, rows_per_block: int = 100
) -> list[np.ndarray]:
    """``resample_weights(rng, n_obs, n_resamples) @ matrix`` for each of ``matrices`` (n_obs
    rows each), the weights drawn ``rows_per_block`` resamples at a time: the same draws and
    the same totals (counts times whole numbers: exact in any order), without the matrix of
    every resample's weights (1,001 x 3,901 observations: 31 MB at 8x the paper's, issue 32)."""
    _check_resamples(n_resamples)
    n_obs = matrices[0].shape[0]
    totals = [np.empty((n_resamples + 1, matrix.shape[1])) for matrix in matrices]
    for total, matrix in zip(totals, matrices, strict=True):
        total[0] = np.ones(n_obs) @ matrix  # row 0: the full data
    for start in range(1, n_resamples + 1, rows_per_block):
        stop = min(start + rows_per_block, n_resamples + 1)
        block = np.empty((stop - start, n_obs))
        for row in range(stop - start):  # resample_weights' draws, in its order
            block[row] = np.bincount(rng.integers(0, n_obs, size=n_obs), minlength=n_obs)
        for total, matrix in zip(totals, matrices, strict=True):
            total[start:stop] = block @ matrix
    return totals


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
    resample without data for that column) are left out, an all-NaN column gives NaN."""
    _check_confidence(confidence)
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


def sorted_codes(values: pd.Series | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted factorisation: an integer code per value and the distinct values, in order."""
    found, uniques = pd.factorize(np.asarray(values), sort=True)
    return found, np.asarray(uniques)

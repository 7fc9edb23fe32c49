"""The vectorised bootstrap against an explicit resampling loop and against scipy."""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd
import pytest
from scipy.stats import bootstrap

from polistemics.stats.bootstrap import (
    check_bootstrap_settings,
    observation_matrix,
    percentile_ci,
    resample_weights,
    resampled_totals,
    sorted_codes,
    stratum_rng,
)
from polistemics.stats.errors import StatisticsError


def test_weights_are_counts_of_draws_with_the_full_data_first() -> None:
    weights = resample_weights(np.random.default_rng(0), 25, 200)
    assert weights.shape == (201, 25)
    assert (weights[0] == 1).all()
    assert (weights[1:].sum(axis=1) == 25).all()
    rng = np.random.default_rng(0)
    draws = rng.integers(0, 25, size=(200, 25))
    assert (weights[1:] == np.stack([np.bincount(d, minlength=25) for d in draws])).all()


@pytest.mark.parametrize("n_obs", [0, 1, 7, 3901])
def test_weights_drawn_a_resample_at_a_time_are_those_of_one_call(n_obs: int) -> None:
    """The draws are made a resample at a time (no matrix of them): the same numbers as one
    call for them all, and the generator is left where that call leaves it."""
    rng, reference = stratum_rng(0, "a/b"), stratum_rng(0, "a/b")
    weights = resample_weights(rng, n_obs, 50)
    draws = reference.integers(0, n_obs, size=(50, n_obs))
    assert (weights[1:] == np.stack([np.bincount(d, minlength=n_obs) for d in draws])).all()
    assert rng.integers(0, 1000) == reference.integers(0, 1000)


def test_paired_weighted_totals_equal_an_explicit_resampling_loop() -> None:
    rng = np.random.default_rng(5)
    n_obs, cells_per_obs = 60, 4
    obs = np.repeat(np.arange(n_obs), cells_per_obs)
    cols = np.tile(np.arange(cells_per_obs) % 2, n_obs)  # two columns
    a = rng.random(len(obs)) < 0.7
    b = rng.random(len(obs)) < 0.5
    weights = resample_weights(stratum_rng(1, "m"), n_obs, 300)
    pa = weights @ observation_matrix(obs, cols, a, n_obs, 2)
    pb = weights @ observation_matrix(obs, cols, b, n_obs, 2)
    n = weights @ observation_matrix(obs, cols, np.ones(len(obs)), n_obs, 2)
    deltas = pb / n - pa / n
    # The same draws by hand: take each drawn observation's cells, compute the rates.
    draws = stratum_rng(1, "m").integers(0, n_obs, size=(300, n_obs))
    for r in (0, 17, 299):
        rows = np.concatenate([np.flatnonzero(obs == o) for o in draws[r]])
        for col in (0, 1):
            chosen = rows[cols[rows] == col]
            assert deltas[r + 1, col] == pytest.approx(b[chosen].mean() - a[chosen].mean())
    assert deltas[0, 0] == pytest.approx(b[cols == 0].mean() - a[cols == 0].mean())


def test_paired_percentile_ci_agrees_with_scipy() -> None:
    rng = np.random.default_rng(9)
    n_obs = 400
    a = (rng.random(n_obs) < 0.75).astype(float)
    b = np.where(rng.random(n_obs) < 0.8, a, 1 - a)  # correlated pairs
    weights = resample_weights(stratum_rng(0, "x"), n_obs, 4000)
    obs = np.arange(n_obs)
    zeros = np.zeros(n_obs, dtype=int)
    delta = (
        weights @ observation_matrix(obs, zeros, b, n_obs, 1)
        - weights @ observation_matrix(obs, zeros, a, n_obs, 1)
    ) / (weights @ observation_matrix(obs, zeros, np.ones(n_obs), n_obs, 1))
    low, high = percentile_ci(delta[1:], 0.95)
    ref = bootstrap(
        (a, b),
        lambda x, y, axis: np.mean(y, axis=axis) - np.mean(x, axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=4000,
        method="percentile",
        random_state=np.random.default_rng(1),
    ).confidence_interval
    assert low[0] == pytest.approx(ref.low, abs=0.01)
    assert high[0] == pytest.approx(ref.high, abs=0.01)


def test_independent_percentile_ci_agrees_with_scipy() -> None:
    rng = np.random.default_rng(4)
    a = (rng.random(300) < 0.6).astype(float)
    b = (rng.random(500) < 0.8).astype(float)

    def resampled_means(values, name):
        n = len(values)
        weights = resample_weights(stratum_rng(0, name), n, 4000)
        return (weights @ values[:, None])[:, 0] / n

    delta = resampled_means(b, "b") - resampled_means(a, "a")
    low, high = percentile_ci(delta[1:, None], 0.95)
    ref = bootstrap(
        (a, b),
        lambda x, y, axis: np.mean(y, axis=axis) - np.mean(x, axis=axis),
        vectorized=True,
        n_resamples=4000,
        method="percentile",
        random_state=np.random.default_rng(2),
    ).confidence_interval
    assert low[0] == pytest.approx(ref.low, abs=0.012)
    assert high[0] == pytest.approx(ref.high, abs=0.012)


def test_percentile_ci_skips_missing_draws_and_checks_confidence() -> None:
    draws = np.array([[np.nan, 1.0], [np.nan, 2.0], [np.nan, 3.0]])
    low, high = percentile_ci(draws, 0.5)
    assert np.isnan(low[0]) and np.isnan(high[0])
    assert low[1] == pytest.approx(1.5) and high[1] == pytest.approx(2.5)
    with pytest.raises(ValueError):
        percentile_ci(draws, 1.0)
    with pytest.raises(ValueError):
        resample_weights(np.random.default_rng(0), 3, 0)


def test_stratum_rng_is_seeded_from_the_seed_and_each_names_crc32() -> None:
    # scoring.bootstrap passes one joined name "variant/model", compare.deltas several names
    joined = np.random.default_rng([4, zlib.crc32(b"full/m1")]).integers(0, 9, 50)
    assert (stratum_rng(4, "full/m1").integers(0, 9, 50) == joined).all()
    several = np.random.default_rng([4, zlib.crc32(b"full"), zlib.crc32(b"m1")]).integers(0, 9, 50)
    assert (stratum_rng(4, "full", "m1").integers(0, 9, 50) == several).all()


def test_percentile_ci_per_column_equals_numpy_on_each_column() -> None:
    rng = np.random.default_rng(2)
    draws = rng.random((500, 4))
    draws[rng.random((500, 4)) < 0.2] = np.nan
    low, high = percentile_ci(draws, 0.9)
    tail = (1 - 0.9) / 2 * 100  # the percentile the intervals have always used (not exactly 5)
    for column in range(4):
        expected = np.nanpercentile(draws[:, column], [tail, 100 - tail])
        assert (low[column], high[column]) == (expected[0], expected[1])


def test_sorted_codes() -> None:
    found, uniques = sorted_codes(pd.Series(["b", "a", "b", "c"]))
    assert found.tolist() == [1, 0, 1, 2] and uniques.tolist() == ["a", "b", "c"]


def test_settings_are_checked_before_any_work() -> None:
    with pytest.raises(StatisticsError, match="n_resamples"):
        check_bootstrap_settings(0, 0.95)
    with pytest.raises(StatisticsError, match="confidence"):
        check_bootstrap_settings(10, 0.0)
    check_bootstrap_settings(1, 0.5)


@pytest.mark.parametrize("rows_per_block", [1, 7, 100, 1000])
def test_resampled_totals_are_the_weights_times_the_matrices_exactly(rows_per_block: int):
    """Drawn a block at a time, the totals are those of the whole weights matrix, to the bit."""
    gen = np.random.default_rng(5)
    passes = gen.integers(0, 4, size=(37, 6)).astype(float)
    counts = passes + gen.integers(0, 3, size=(37, 6))
    weights = resample_weights(stratum_rng(3, "m"), 37, 250)
    got = resampled_totals(stratum_rng(3, "m"), 250, passes, counts, rows_per_block=rows_per_block)
    assert np.array_equal(got[0], weights @ passes)
    assert np.array_equal(got[1], weights @ counts)

"""Bootstrap intervals of the agreement coefficients: every resample's coefficients are the ones
irrCAC and statsmodels give for the resampled table (the same draws, built by hand)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from irrCAC.raw import CAC
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from polistemics.stats import agreement_intervals, binary_counts, uneven_agreement


def fixture(n_clusters: int, per_cluster: int, raters: int, seed: int):
    """Items x raters 0/1 ratings, ``per_cluster`` items per cluster, correlated in a cluster."""
    rng = np.random.default_rng(seed)
    base = rng.random(n_clusters) < 0.6
    ratings = np.empty((n_clusters * per_cluster, raters), dtype=int)
    for c in range(n_clusters):
        for i in range(per_cluster):
            flip = rng.random(raters) < 0.2
            ratings[c * per_cluster + i] = np.where(flip, ~base[c], base[c])
    return ratings, np.repeat(np.arange(n_clusters), per_cluster)


def drawn_rows(draws: np.ndarray, clusters: np.ndarray) -> np.ndarray:
    return np.concatenate([np.flatnonzero(clusters == c) for c in draws])


def test_fixed_panel_resamples_match_statsmodels_fleiss_kappa() -> None:
    ratings, clusters = fixture(30, 3, 3, seed=1)
    yes, raters = ratings.sum(axis=1), np.full(len(ratings), 3)
    found = agreement_intervals(yes, raters, clusters, np.random.default_rng(7), 300)
    draws = np.random.default_rng(7).integers(0, 30, size=(300, 30))
    kappas, agreement, ac1 = [], [], []
    for d in draws:
        table = binary_counts(ratings[drawn_rows(d, clusters)])
        kappas.append(sm_fleiss_kappa(table, method="fleiss"))
        stats = uneven_agreement(table[:, 1], table.sum(axis=1))
        agreement.append(stats.percent_agreement)
        ac1.append(stats.gwet_ac1)
    assert found.n_clusters == 30 and found.n_resamples == 300
    for ours, theirs in (
        (found.fleiss_kappa, kappas),
        (found.percent_agreement, agreement),
        (found.gwet_ac1, ac1),
    ):
        assert ours == pytest.approx(tuple(np.percentile(theirs, [2.5, 97.5])), rel=1e-9)
    point = uneven_agreement(yes, raters)
    assert found.fleiss_kappa[0] < point.fleiss_kappa < found.fleiss_kappa[1]


def test_uneven_raters_resamples_match_irrcac() -> None:
    ratings, clusters = fixture(12, 2, 4, seed=2)
    ratings = ratings.astype(float)
    ratings[::3, 3] = np.nan  # a third of the items have three ratings, not four
    ratings[5, 1:] = np.nan  # one item with a single rating: left out
    rated = ~np.isnan(ratings)
    yes, raters = np.nansum(ratings, axis=1), rated.sum(axis=1)
    found = agreement_intervals(yes, raters, clusters, np.random.default_rng(3), 25)
    draws = np.random.default_rng(3).integers(0, 12, size=(25, 12))
    kappas, ac1s = [], []
    for d in draws:
        rows = drawn_rows(d, clusters)
        # the items with two or more ratings, as uneven_agreement's test gives irrCAC
        frame = pd.DataFrame(ratings[rows[raters[rows] >= 2]])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kappas.append(CAC(frame, categories=[0, 1], digits=15).fleiss()["est"])
            ac1s.append(CAC(frame, categories=[0, 1], digits=15).gwet()["est"])
    kappas = [k["coefficient_value"] for k in kappas]
    ac1s = [a["coefficient_value"] for a in ac1s]
    assert found.fleiss_kappa == pytest.approx(tuple(np.percentile(kappas, [2.5, 97.5])))
    assert found.gwet_ac1 == pytest.approx(tuple(np.percentile(ac1s, [2.5, 97.5])))


def test_one_category_resamples_are_left_out_and_no_items_give_nan() -> None:
    yes = np.array([3, 3, 0, 3])
    found = agreement_intervals(
        yes, np.full(4, 3), np.array([0, 0, 1, 2]), np.random.default_rng(0), 200
    )
    assert np.isfinite(found.fleiss_kappa).all() and found.percent_agreement == (1.0, 1.0)
    empty = agreement_intervals(
        np.array([1]), np.array([1]), np.array([0]), np.random.default_rng(0), 10
    )
    assert empty.n_clusters == 0 and np.isnan(empty.gwet_ac1).all()

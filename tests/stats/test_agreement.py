"""Agreement coefficients against irrCAC and statsmodels; the fixed-panel and uneven forms."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from irrCAC.raw import CAC
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from polistemics.stats.agreement import (
    agreement_stats,
    binary_counts,
    fleiss_kappa,
    gwet_ac1,
    observed_agreement,
    uneven_agreement,
)
from polistemics.stats.errors import StatisticsError

TOLERANCE = 1e-9


def reference(ratings: np.ndarray) -> tuple[float, float, float]:
    """(irrCAC Fleiss, irrCAC AC1, statsmodels Fleiss) for an items x raters 0/1 matrix."""
    frame = pd.DataFrame(ratings.astype(int))
    cac = CAC(frame, categories=[0, 1], digits=15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            irr_kappa = cac.fleiss()["est"]["coefficient_value"]
        except ZeroDivisionError:
            irr_kappa = float("nan")
        irr_ac1 = CAC(frame, categories=[0, 1], digits=15).gwet()["est"]["coefficient_value"]
        sm_kappa = sm_fleiss_kappa(binary_counts(ratings), method="fleiss")
    return float(irr_kappa), float(irr_ac1), float(sm_kappa)


def close(ours: float, theirs: float) -> bool:
    return (math.isnan(ours) and math.isnan(theirs)) or abs(ours - theirs) <= TOLERANCE


@pytest.mark.parametrize(
    ("items", "raters", "prevalence", "seed"),
    [
        (50, 3, 0.5, 1),
        (200, 3, 0.9, 2),
        (400, 3, 0.97, 3),
        (30, 2, 0.6, 4),
        (80, 2, 0.2, 5),
        (60, 7, 0.7, 6),
        (25, 12, 0.4, 7),
        (5, 3, 0.5, 8),
    ],
)
def test_random_data_matches_irrcac_and_statsmodels(items, raters, prevalence, seed):
    rng = np.random.default_rng(seed)
    # correlated raters: an item-level tendency plus rater noise
    tendency = rng.random(items) < prevalence
    ratings = np.where(
        rng.random((items, raters)) < 0.8,
        tendency[:, None],
        rng.random((items, raters)) < prevalence,
    )
    counts = binary_counts(ratings)
    irr_kappa, irr_ac1, sm_kappa = reference(ratings)
    assert close(fleiss_kappa(counts), irr_kappa)
    assert close(fleiss_kappa(counts), sm_kappa)
    assert close(gwet_ac1(counts), irr_ac1)


def test_all_raters_agree_on_every_item():
    ratings = np.array([[1, 1, 1], [0, 0, 0], [1, 1, 1], [1, 1, 1]], dtype=bool)
    irr_kappa, irr_ac1, sm_kappa = reference(ratings)
    counts = binary_counts(ratings)
    assert fleiss_kappa(counts) == pytest.approx(1.0) and close(fleiss_kappa(counts), irr_kappa)
    assert close(fleiss_kappa(counts), sm_kappa)
    assert gwet_ac1(counts) == pytest.approx(1.0) and close(gwet_ac1(counts), irr_ac1)
    stats = agreement_stats(counts)
    assert stats.unanimity == 1.0 and stats.prevalence == pytest.approx(9 / 12)


@pytest.mark.parametrize("value", [True, False])
def test_all_ratings_in_one_category_kappa_is_nan_ac1_is_one(value):
    ratings = np.full((6, 3), value)
    counts = binary_counts(ratings)
    _, irr_ac1, sm_kappa = reference(ratings)
    assert math.isnan(fleiss_kappa(counts)) and math.isnan(sm_kappa)
    assert gwet_ac1(counts) == 1.0 and close(gwet_ac1(counts), irr_ac1)
    stats = agreement_stats(counts)
    assert stats.prevalence == (1.0 if value else 0.0) and math.isnan(stats.fleiss_kappa)


def test_multi_category_counts_match_statsmodels():
    rng = np.random.default_rng(9)
    counts = rng.multinomial(5, [0.5, 0.3, 0.2], size=40)
    assert close(fleiss_kappa(counts), float(sm_fleiss_kappa(counts)))


def test_undefined_and_bad_tables():
    empty = np.zeros((0, 2))
    assert math.isnan(fleiss_kappa(empty)) and math.isnan(gwet_ac1(empty))
    assert agreement_stats(empty).n == 0
    with pytest.raises(StatisticsError, match="same number of raters"):
        fleiss_kappa([[1, 2], [0, 2]])
    with pytest.raises(StatisticsError, match="at least two raters"):
        gwet_ac1([[1, 0], [0, 1]])
    with pytest.raises(StatisticsError, match="items x categories"):
        fleiss_kappa([1, 2, 3])


def test_unanimity_and_prevalence():
    counts = binary_counts(np.array([[1, 1, 0], [1, 1, 1], [0, 0, 0], [1, 0, 0]], dtype=bool))
    stats = agreement_stats(counts)
    assert stats.n == 4
    assert stats.unanimity == 0.5
    assert stats.prevalence == pytest.approx(6 / 12)


# ---- any number of raters per item (moved from tests/annotate/test_agreement.py) ------------


def test_equals_the_panel_formulas_with_a_fixed_number_of_raters() -> None:
    rng = np.random.default_rng(7)
    yes = rng.integers(0, 4, size=60)
    raters = np.full(60, 3)
    table = np.column_stack([raters - yes, yes])
    ours = uneven_agreement(yes, raters)
    assert ours.percent_agreement == pytest.approx(observed_agreement(table))
    assert ours.fleiss_kappa == pytest.approx(fleiss_kappa(table))
    assert ours.gwet_ac1 == pytest.approx(gwet_ac1(table))


def test_one_category_only_kappa_undefined_ac1_one() -> None:
    stats = uneven_agreement(np.array([2, 2, 3]), np.array([2, 2, 3]))
    assert stats.percent_agreement == 1.0 and np.isnan(stats.fleiss_kappa)
    assert stats.gwet_ac1 == 1.0


@pytest.mark.parametrize("seed", [11, 12])
def test_uneven_raters_match_irrcac(seed: int) -> None:
    rng = np.random.default_rng(seed)
    items, max_raters = 80, 5
    ratings = np.full((items, max_raters), np.nan)
    for item in range(items):
        n = rng.integers(1, max_raters + 1)
        truth = rng.random() < 0.35
        says = np.where(rng.random(n) < 0.8, truth, not truth)
        ratings[item, rng.choice(max_raters, size=n, replace=False)] = says
    n_raters = (~np.isnan(ratings)).sum(axis=1)
    n_yes = np.nansum(ratings, axis=1)
    ours = uneven_agreement(n_yes, n_raters)
    overlapping = pd.DataFrame(ratings[n_raters >= 2])
    cac = CAC(overlapping, categories=[0, 1], digits=15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fleiss, gwet = cac.fleiss()["est"], cac.gwet()["est"]
    assert ours.n_items == int((n_raters >= 2).sum())
    assert ours.n_ratings == int(n_raters[n_raters >= 2].sum())
    assert close(ours.percent_agreement, float(fleiss["pa"]))
    assert close(ours.fleiss_kappa, float(fleiss["coefficient_value"]))
    assert close(ours.gwet_ac1, float(gwet["coefficient_value"]))


def test_uneven_agreement_leaves_single_ratings_out() -> None:
    stats = uneven_agreement(np.array([1, 0, 1]), np.array([1, 1, 1]))
    assert stats.n_items == 0 and stats.n_ratings == 0 and math.isnan(stats.gwet_ac1)
    with_single = uneven_agreement(np.array([2, 1, 0]), np.array([2, 1, 3]))
    alone = uneven_agreement(np.array([2, 0]), np.array([2, 3]))
    assert with_single == alone


def test_agreement_stats_wants_a_binary_table() -> None:
    with pytest.raises(StatisticsError, match="binary"):
        agreement_stats([[1, 1, 1], [3, 0, 0]])
    with pytest.raises(StatisticsError, match="negative"):
        fleiss_kappa([[4, -1], [1, 2]])

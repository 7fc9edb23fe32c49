"""Percentile intervals of the agreement coefficients, from the one bootstrap engine.

The rated items (e.g. an observation's sub-questions, rated by its samples) come in clusters
(the observation): items of one cluster are not independent, so the resampling unit is the
cluster, as everywhere in the project. Each item's contribution to the variable-raters forms
(Gwet 2014, as ``agreement.uneven_agreement`` computes them) is a mean over items:

- its share of agreeing rater pairs (P_o is their mean);
- its share of "yes" ratings (the mean is p_yes; Fleiss' chance agreement p^2 + (1 - p)^2,
  Gwet's 2 p (1 - p) for two categories).

So a cluster's sums of those shares and its number of items are the columns of
``observation_matrix``, ``resample_weights`` gives every resample's totals at once, and each
resample's coefficients follow from its totals (with all weights 1 they are
``uneven_agreement``'s: the estimate stays that function's). A resample whose ratings fall in one category has an undefined
kappa (NaN, left out by ``percentile_ci``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from polistemics.stats.bootstrap import (
    DEFAULT_CONFIDENCE,
    check_bootstrap_settings,
    observation_matrix,
    percentile_ci,
    resample_weights,
    sorted_codes,
)
from polistemics.stats.errors import StatisticsError

Interval = tuple[float, float]


@dataclass(frozen=True)
class AgreementIntervals:
    """Percentile intervals of the three coefficients over resampled clusters."""

    n_clusters: int  # clusters with at least one item of two or more ratings
    n_resamples: int
    percent_agreement: Interval
    fleiss_kappa: Interval
    gwet_ac1: Interval


def agreement_intervals(
    n_yes: np.ndarray,
    n_raters: np.ndarray,
    clusters: np.ndarray,
    rng: np.random.Generator,
    n_resamples: int,
    confidence: float = DEFAULT_CONFIDENCE,
) -> AgreementIntervals:
    """Bootstrap intervals of ``uneven_agreement(n_yes, n_raters)``, resampling whole
    ``clusters`` (one label per item) with ``rng``; items with fewer than two ratings are left
    out, as there."""
    check_bootstrap_settings(n_resamples, confidence)
    yes = np.asarray(n_yes, dtype="float64")
    raters = np.asarray(n_raters, dtype="float64")
    labels = np.asarray(clusters)
    if not yes.shape == raters.shape == labels.shape:
        raise StatisticsError("n_yes, n_raters and clusters need one value per item")
    keep = raters >= 2
    yes, raters, labels = yes[keep], raters[keep], labels[keep]
    nan = (float("nan"), float("nan"))
    if not len(raters):
        return AgreementIntervals(0, n_resamples, nan, nan, nan)
    codes, found = sorted_codes(labels)
    n_clusters = len(found)
    agreeing = (yes * (yes - 1) + (raters - yes) * (raters - yes - 1)) / (raters * (raters - 1))
    columns = np.repeat(np.arange(3)[None, :], len(raters), axis=0)
    values = np.column_stack([np.ones(len(raters)), agreeing, yes / raters])
    matrix = observation_matrix(np.repeat(codes, 3), columns.ravel(), values.ravel(), n_clusters, 3)
    totals = resample_weights(rng, n_clusters, n_resamples)[1:] @ matrix
    observed, p_yes = totals[:, 1] / totals[:, 0], totals[:, 2] / totals[:, 0]
    fleiss_chance = p_yes**2 + (1 - p_yes) ** 2
    gwet_chance = 2 * p_yes * (1 - p_yes)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = np.where(
            np.isclose(fleiss_chance, 1.0, rtol=0.0, atol=1e-12),
            np.nan,
            (observed - fleiss_chance) / (1 - fleiss_chance),
        )
        ac1 = (observed - gwet_chance) / (1 - gwet_chance)
    low, high = percentile_ci(np.column_stack([observed, kappa, ac1]), confidence)
    bounds = [(float(lo), float(hi)) for lo, hi in zip(low, high, strict=True)]
    return AgreementIntervals(n_clusters, n_resamples, *bounds)

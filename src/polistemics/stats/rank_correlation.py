"""Rank correlations with p-values that hold for few items: Spearman's rho and Kendall's tau-b.

For fewer than ``EXACT_BELOW`` items the asymptotic p-values scipy gives by default are wrong in
the direction that matters (Spearman's t approximation gives p = 0 for three ranks in the same
order, where no test on three ranks can go below 1/3), so they are exact:

- Kendall: ``scipy.stats.kendalltau(method="exact")`` without ties; with ties (scipy's exact
  method refuses them) a permutation test over all n! orderings of the second sample's ranks.
- Spearman: ``scipy.stats.permutation_test`` over all n! orderings of the second sample's ranks
  (``permutation_type="pairings"``, ``n_resamples=inf``: every ordering, no random draw).

Both are two-sided. From ``EXACT_BELOW`` items on, scipy's asymptotic p-values are used.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.stats import kendalltau, permutation_test, rankdata, spearmanr

EXACT_BELOW = 10  # n < 10: exact p-values (at most 9! = 362,880 orderings)
EXACT, ASYMPTOTIC = "exact", "asymptotic"


@dataclass(frozen=True)
class RankCorrelation:
    spearman: float
    spearman_p: float
    kendall: float
    kendall_p: float
    p_method: str  # EXACT or ASYMPTOTIC


def _spearman_of_ranks(rx: np.ndarray):
    """Spearman's rho of fixed ranks ``rx`` against orderings of the other sample's ranks: the
    Pearson correlation of the ranks (scipy's definition, ties as mid-ranks)."""
    centred_x = rx - rx.mean()
    norm_x = math.sqrt(float(centred_x @ centred_x))

    def statistic(ry: np.ndarray, axis: int = -1) -> np.ndarray:
        centred_y = ry - ry.mean(axis=axis, keepdims=True)
        norm_y = np.sqrt((centred_y**2).sum(axis=axis))
        return (centred_y * centred_x).sum(axis=axis) / (norm_x * norm_y)

    return statistic


def _kendall_of_ranks(rx: np.ndarray, ry: np.ndarray):
    """Kendall's tau-b of fixed ranks ``rx`` against orderings of ``ry`` (scipy's definition:
    concordant minus discordant pairs over the tie-corrected pair count; an ordering does not
    change the ties, so the denominator is fixed)."""
    upper = np.triu_indices(len(rx), k=1)
    sign_x = np.sign(rx[:, None] - rx[None, :])[upper]
    untied_y = np.count_nonzero(np.sign(ry[:, None] - ry[None, :])[upper])
    denominator = math.sqrt(np.count_nonzero(sign_x) * untied_y)

    def statistic(ordering: np.ndarray, axis: int = -1) -> np.ndarray:
        ordering = np.moveaxis(ordering, axis, -1)
        sign_y = np.sign(ordering[..., :, None] - ordering[..., None, :])[..., upper[0], upper[1]]
        return (sign_y * sign_x).sum(axis=-1) / denominator

    return statistic


def _exact_p(rx: np.ndarray, ry: np.ndarray, statistic) -> float:
    """Two-sided p-value of ``statistic`` over every ordering of ``ry`` (n! of them)."""
    result = permutation_test(
        (ry,),
        statistic,
        permutation_type="pairings",
        vectorized=True,
        n_resamples=np.inf,
        alternative="two-sided",
        batch=20_000,
    )
    return float(result.pvalue)


def rank_correlation(x: np.ndarray, y: np.ndarray) -> RankCorrelation:
    """Spearman's rho and Kendall's tau-b of ``x`` and ``y`` (at least two items, neither
    constant) with two-sided p-values, exact for fewer than ``EXACT_BELOW`` items."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tiny samples: scipy warns about the p-value's accuracy
        rho = spearmanr(x, y)
        tau = kendalltau(x, y)
    if len(x) >= EXACT_BELOW:
        return RankCorrelation(
            float(rho.statistic),
            float(rho.pvalue),
            float(tau.statistic),
            float(tau.pvalue),
            ASYMPTOTIC,
        )
    rx, ry = rankdata(x), rankdata(y)
    spearman_p = _exact_p(rx, ry, _spearman_of_ranks(rx))
    if len(set(rx)) == len(rx) and len(set(ry)) == len(ry):
        kendall_p = float(kendalltau(x, y, method="exact").pvalue)
    else:
        kendall_p = _exact_p(rx, ry, _kendall_of_ranks(rx, ry))
    return RankCorrelation(float(rho.statistic), spearman_p, float(tau.statistic), kendall_p, EXACT)

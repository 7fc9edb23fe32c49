"""Inter-rater agreement of categorical ratings: percent agreement, Fleiss' kappa, Gwet's AC1.

A count table has one row per rated item and one column per category; each row sums to that
item's number of raters. For binary ratings the columns are (no, yes), i.e. (fail, pass).

- P_o (percent agreement): mean over items of the share of agreeing rater pairs.
- Fleiss' kappa: (P_o - P_e) / (1 - P_e) with P_e = sum_k p_k^2. Undefined (NaN) when all
  ratings fall in one category (P_e = 1), e.g. prevalence 0 or 1.
- Gwet's AC1: (P_o - P_e) / (1 - P_e) with P_e = sum_k p_k (1 - p_k) / (q - 1); defined
  whenever there is at least one item (P_e <= 1 - 1/q < 1).

Two forms, as the two kinds of rating data need:

- A fixed panel (``fleiss_kappa``, ``gwet_ac1``, ``observed_agreement``, ``agreement_stats``):
  every item has the same number of raters (checked). Fleiss' p_k is the share of all ratings
  in category k (Fleiss 1971); Gwet's the mean over items of each item's share.
- Any number of raters per item (``uneven_agreement``, Gwet 2014, as irrCAC computes it):
  items with fewer than two ratings are left out and both p_k are means over items of each
  item's share. With a fixed panel the two forms agree (to rounding).

All coefficients are NaN for an empty table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from polistemics.stats.errors import StatisticsError

CountTable = Sequence[Sequence[float]] | np.ndarray


def panel_table(counts: CountTable) -> np.ndarray:
    """``counts`` as a float items x categories array, checked to be a fixed panel's table."""
    table = np.asarray(counts, dtype="float64")
    if table.ndim != 2 or table.shape[1] < 2:
        raise StatisticsError(
            f"count table must be items x categories (>= 2 columns), got shape {table.shape}"
        )
    if np.any(table < 0):
        raise StatisticsError("count table has negative counts")
    if table.shape[0]:
        raters = table.sum(axis=1)
        if not np.allclose(raters, raters[0]):
            raise StatisticsError("every item needs the same number of raters (a fixed panel)")
        if raters[0] < 2:
            raise StatisticsError("agreement needs at least two raters per item")
    return table


def observed_agreement(counts: CountTable) -> float:
    """Mean share of agreeing rater pairs per item (P_o) of a fixed panel."""
    table = panel_table(counts)
    return _panel_observed(table) if table.shape[0] else float("nan")


def fleiss_kappa(counts: CountTable) -> float:
    """Fleiss' kappa of a fixed panel's count table."""
    table = panel_table(counts)
    return _panel_fleiss(table, _panel_observed(table)) if table.shape[0] else float("nan")


def gwet_ac1(counts: CountTable) -> float:
    """Gwet's AC1 of a fixed panel's count table."""
    table = panel_table(counts)
    return _panel_gwet(table, _panel_observed(table)) if table.shape[0] else float("nan")


def binary_counts(ratings: np.ndarray) -> np.ndarray:
    """items x raters booleans -> items x (no, yes) counts."""
    matrix = np.asarray(ratings, dtype=bool)
    n_yes = matrix.sum(axis=1)
    return np.column_stack([matrix.shape[1] - n_yes, n_yes]).astype("float64")


@dataclass(frozen=True)
class AgreementStats:
    """Agreement of a fixed panel on binary ratings."""

    n: int  # rated items
    prevalence: float  # share of all ratings that are "yes" (pass)
    unanimity: float  # share of items on which all raters agree
    fleiss_kappa: float
    gwet_ac1: float


def agreement_stats(counts: CountTable) -> AgreementStats:
    """Stats for a fixed panel's binary (no, yes) count table."""
    table = panel_table(counts)
    if table.shape[1] != 2:
        raise StatisticsError("agreement_stats expects a binary (fail, pass) count table")
    n = table.shape[0]
    if n == 0:
        nan = float("nan")
        return AgreementStats(0, nan, nan, nan, nan)
    unanimous = (table == table.sum(axis=1, keepdims=True)).any(axis=1)
    observed = _panel_observed(table)
    return AgreementStats(
        n=n,
        prevalence=float(table[:, 1].sum() / table.sum()),
        unanimity=float(unanimous.mean()),
        fleiss_kappa=_panel_fleiss(table, observed),
        gwet_ac1=_panel_gwet(table, observed),
    )


@dataclass(frozen=True)
class UnevenAgreement:
    """Agreement on binary ratings with any number of raters per item."""

    n_items: int  # items with at least two ratings
    n_ratings: int  # ratings of those items
    percent_agreement: float
    fleiss_kappa: float
    gwet_ac1: float


def uneven_agreement(n_yes: np.ndarray, n_raters: np.ndarray) -> UnevenAgreement:
    """Binary (no, yes) agreement of the items with ``n_raters >= 2`` ratings, ``n_yes`` of
    them "yes" (variable-raters forms, Gwet 2014)."""
    yes = np.asarray(n_yes, dtype="float64")
    raters = np.asarray(n_raters, dtype="float64")
    keep = raters >= 2
    yes, raters = yes[keep], raters[keep]
    if not len(raters):
        nan = float("nan")
        return UnevenAgreement(0, 0, nan, nan, nan)
    table = np.column_stack([raters - yes, yes])
    observed = _observed(table, raters)
    shares = _mean_item_shares(table, raters[:, None])
    return UnevenAgreement(
        n_items=int(len(raters)),
        n_ratings=int(raters.sum()),
        percent_agreement=observed,
        fleiss_kappa=chance_corrected(observed, _fleiss_chance(shares)),
        gwet_ac1=chance_corrected(observed, _gwet_chance(shares)),
    )


def chance_corrected(observed: float, chance: float) -> float:
    """(P_o - P_e) / (1 - P_e); NaN when chance agreement is certain (one category only)."""
    if math.isclose(chance, 1.0, rel_tol=0.0, abs_tol=1e-12):
        return float("nan")
    return (observed - chance) / (1.0 - chance)


# The shared formulas. ``raters``: the raters per item, a scalar for a fixed panel.


def _observed(table: np.ndarray, raters: float | np.ndarray) -> float:
    return float(((table * (table - 1)).sum(axis=1) / (raters * (raters - 1))).mean())


def _mean_item_shares(table: np.ndarray, raters: float | np.ndarray) -> np.ndarray:
    return (table / raters).mean(axis=0)


def _fleiss_chance(shares: np.ndarray) -> float:
    return float((shares**2).sum())


def _gwet_chance(shares: np.ndarray) -> float:
    return float((shares * (1 - shares)).sum() / (len(shares) - 1))


# A checked, non-empty fixed panel's table (``panel_table``).


def _panel_observed(table: np.ndarray) -> float:
    return _observed(table, table.sum(axis=1)[0])


def _panel_fleiss(table: np.ndarray, observed: float) -> float:
    return chance_corrected(observed, _fleiss_chance(table.sum(axis=0) / table.sum()))


def _panel_gwet(table: np.ndarray, observed: float) -> float:
    return chance_corrected(observed, _gwet_chance(_mean_item_shares(table, _row_sums(table))))


def _row_sums(table: np.ndarray) -> np.ndarray:
    return table.sum(axis=1, keepdims=True)

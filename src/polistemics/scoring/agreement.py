"""Inter-judge agreement (App. G.1, Tables 12-13); the repeat-call flip rate is in ``flips``.

Coefficients take a count table: one row per rated item, one column per category, each row
summing to the (fixed) number of raters. For binary pass/fail verdicts the columns are
(fail, pass).

- Fleiss' kappa: (P_o - P_e) / (1 - P_e) with P_e = sum_k p_k^2. Undefined (NaN) when all
  ratings fall in one category (P_e = 1), e.g. prevalence 0 or 1.
- Gwet's AC1: (P_o - P_e) / (1 - P_e) with P_e = sum_k p_k (1 - p_k) / (q - 1); defined
  whenever there is at least one item (P_e <= 1 - 1/q < 1).
Both are NaN for an empty table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from polistemics.scoring.cells import scoreable_mask, sorted_groups
from polistemics.scoring.errors import ScoringError
from polistemics.scoring.verdicts import (
    DEFAULT_PANEL_SIZE,
    JudgeVerdict,
    tally_panel,
    verdict_frame,
)

Z_95 = 1.959963984540054  # standard normal 97.5% quantile


def _count_table(counts: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    table = np.asarray(counts, dtype="float64")
    if table.ndim != 2 or table.shape[1] < 2:
        raise ScoringError(
            f"count table must be items x categories (>= 2 columns), got shape {table.shape}"
        )
    if np.any(table < 0):
        raise ScoringError("count table has negative counts")
    if table.shape[0]:
        raters = table.sum(axis=1)
        if not np.allclose(raters, raters[0]):
            raise ScoringError("every item needs the same number of raters (a fixed panel)")
        if raters[0] < 2:
            raise ScoringError("agreement needs at least two raters per item")
    return table


def observed_agreement(counts: Sequence[Sequence[float]] | np.ndarray) -> float:
    """Mean share of agreeing rater pairs per item (P_o)."""
    table = _count_table(counts)
    return _observed(table) if table.shape[0] else float("nan")


def fleiss_kappa(counts: Sequence[Sequence[float]] | np.ndarray) -> float:
    table = _count_table(counts)
    return _fleiss(table, _observed(table)) if table.shape[0] else float("nan")


def gwet_ac1(counts: Sequence[Sequence[float]] | np.ndarray) -> float:
    table = _count_table(counts)
    return _gwet(table, _observed(table)) if table.shape[0] else float("nan")


# The coefficients of a checked, non-empty count table (``_count_table``), given P_o.


def _observed(table: np.ndarray) -> float:
    raters = table.sum(axis=1)[0]
    return float(((table * (table - 1)).sum(axis=1) / (raters * (raters - 1))).mean())


def _fleiss(table: np.ndarray, observed: float) -> float:
    shares = table.sum(axis=0) / table.sum()
    expected = float((shares**2).sum())
    if math.isclose(expected, 1.0, rel_tol=0.0, abs_tol=1e-12):
        return float("nan")
    return (observed - expected) / (1.0 - expected)


def _gwet(table: np.ndarray, observed: float) -> float:
    categories = table.shape[1]
    shares = (table / table.sum(axis=1, keepdims=True)).mean(axis=0)
    expected = float((shares * (1 - shares)).sum() / (categories - 1))
    return (observed - expected) / (1.0 - expected)


def binary_counts(passes: np.ndarray) -> np.ndarray:
    """items x raters booleans -> items x (fail, pass) counts."""
    matrix = np.asarray(passes, dtype=bool)
    n_pass = matrix.sum(axis=1)
    return np.column_stack([matrix.shape[1] - n_pass, n_pass]).astype("float64")


@dataclass(frozen=True)
class AgreementStats:
    n: int  # rated items (judged sub-question instances)
    prevalence: float  # marginal pass rate of individual verdicts
    unanimity: float  # share of items on which all raters agree
    fleiss_kappa: float
    gwet_ac1: float


def agreement_stats(counts: Sequence[Sequence[float]] | np.ndarray) -> AgreementStats:
    """Stats for a binary (fail, pass) count table."""
    table = _count_table(counts)
    if table.shape[1] != 2:
        raise ScoringError("agreement_stats expects a binary (fail, pass) count table")
    n = table.shape[0]
    if n == 0:
        nan = float("nan")
        return AgreementStats(0, nan, nan, nan, nan)
    unanimous = (table == table.sum(axis=1, keepdims=True)).any(axis=1)
    observed = _observed(table)
    return AgreementStats(
        n=n,
        prevalence=float(table[:, 1].sum() / table.sum()),
        unanimity=float(unanimous.mean()),
        fleiss_kappa=_fleiss(table, observed),
        gwet_ac1=_gwet(table, observed),
    )


def agreement_table(
    verdicts: Iterable[JudgeVerdict] | pd.DataFrame,
    by: Sequence[str] = ("rubric", "sub_question", "language"),
    panel_size: int = DEFAULT_PANEL_SIZE,
) -> pd.DataFrame:
    """Agreement of the judge panel per group (default: rubric x sub-question x language).

    Only items x rubric with a complete panel count (as in ``verdicts.majority``); each item x
    sub-question is one rated instance. ``by=("rubric",)`` pools within rubric (Table 12),
    ``("rubric", "language")`` gives Table 13.
    """
    return agreement_by(tally_panel(verdicts, panel_size).counts, by)


def agreement_by(counts: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Agreement per group of ``verdicts.vote_counts`` rows (one per rated instance)."""
    n_pass, n_votes = counts["n_pass"].to_numpy(), counts["n_votes"].to_numpy()
    rows = []
    for key, group in sorted_groups(counts, by, dropna=False):
        stats = agreement_stats(np.column_stack([n_votes[group] - n_pass[group], n_pass[group]]))
        rows.append(
            (*key, stats.n, stats.prevalence, stats.unanimity, stats.fleiss_kappa, stats.gwet_ac1)
        )
    return pd.DataFrame(
        rows, columns=[*by, "n", "prevalence", "unanimity", "fleiss_kappa", "gwet_ac1"]
    )


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; (nan, nan) for n = 0."""
    if n == 0:
        return float("nan"), float("nan")
    if not 0 <= successes <= n:
        raise ScoringError(f"successes must lie in [0, {n}], got {successes}")
    p = successes / n
    denominator = 1 + z**2 / n
    centre = (p + z**2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def scored_verdicts(verdicts: Iterable[JudgeVerdict] | pd.DataFrame) -> pd.DataFrame:
    """The verdicts of sub-questions that are scored in their environment."""
    frame = verdict_frame(verdicts)
    if frame.empty:
        return frame
    keep, _ = scoreable_mask(frame["rubric"], frame["sub_question"], frame["environment"])
    return frame[keep]

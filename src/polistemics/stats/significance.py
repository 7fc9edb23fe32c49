"""Significance of paired binary differences: the exact McNemar test and Holm's correction.

McNemar's exact test looks only at the discordant pairs: ``b`` pairs that pass on side A and
fail on side B, ``c`` the reverse (``compare.paired`` counts them per pass-rate table row).
Under the null hypothesis each discordant pair falls either way with probability 1/2, so the
two-sided p-value is scipy's exact binomial test of ``b`` successes in ``b + c`` trials (1 when
there are no discordant pairs). Holm's step-down adjustment controls the family-wise error over
the tests of one family (``compare.paired``: one table).

Holm's adjustment is written here, in statsmodels' own arithmetic (``multipletests(...,
method="holm")``, which the tests check it against value for value). statsmodels ends its Holm
branch with a full ``gc.collect()``: a comparison adjusts one family per table, and those
collections took about 110 CPU seconds of the test suite (py-spy), more than any other function.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import binomtest

from polistemics.stats.defaults import DEFAULT_ALPHA
from polistemics.stats.errors import StatisticsError


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts."""
    if b < 0 or c < 0:
        raise StatisticsError("discordant counts cannot be negative")
    if b + c == 0:
        return 1.0
    return float(binomtest(int(b), int(b + c), 0.5, alternative="two-sided").pvalue)


def mcnemar_many(b: Sequence[int] | np.ndarray, c: Sequence[int] | np.ndarray) -> np.ndarray:
    """``mcnemar_exact`` per (b, c), each distinct pair tested once (tables repeat pairs)."""
    pairs = np.column_stack([np.asarray(b, dtype="int64"), np.asarray(c, dtype="int64")])
    if not len(pairs):
        return np.zeros(0)
    distinct, where = np.unique(pairs, axis=0, return_inverse=True)
    p_values = np.array([mcnemar_exact(int(x), int(y)) for x, y in distinct])
    return p_values[where.reshape(-1)]


def holm(
    p_values: Sequence[float] | np.ndarray, alpha: float = DEFAULT_ALPHA
) -> tuple[np.ndarray, np.ndarray]:
    """Holm-adjusted p-values and which tests are rejected at ``alpha`` (family = all given)."""
    values = np.asarray(p_values, dtype=float).reshape(-1)
    if values.size == 0:
        return np.zeros(0), np.zeros(0, dtype=bool)
    order = np.argsort(values)
    ascending = values[order]
    factors = np.arange(values.size, 0, -1)  # m, m - 1, ..., 1
    # Step down: reject up to the first p-value above its threshold alpha / (m - i).
    kept = np.flatnonzero(ascending > alpha / factors)
    first_kept = kept[0] if kept.size else values.size
    adjusted, reject = np.empty_like(ascending), np.zeros(values.size, dtype=bool)
    adjusted[order] = np.minimum(np.maximum.accumulate(ascending * factors), 1.0)
    reject[order[:first_kept]] = True
    return adjusted, reject

"""Spearman's rank correlation: scipy's when it is installed, else the same statistic here."""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict


class RankCorrelation(BaseModel):
    model_config = ConfigDict(frozen=True)

    rho: float | None  # None when undefined (fewer than 2 items or a constant variable)
    p_value: float | None  # two-sided, from scipy; None without scipy
    n: int


def average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        shared = (start + end) / 2 + 1
        for position in range(start, end + 1):
            ranks[order[position]] = shared
        start = end + 1
    return ranks


def spearman_without_scipy(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson correlation of the average ranks (what scipy.stats.spearmanr computes)."""
    if len(x) != len(y):
        raise ValueError(f"spearman: {len(x)} x values but {len(y)} y values")
    if len(x) < 2:
        return None
    rx, ry = average_ranks(x), average_ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def spearman(x: Sequence[float], y: Sequence[float]) -> RankCorrelation:
    rho = spearman_without_scipy(x, y)
    if rho is None:
        return RankCorrelation(rho=None, p_value=None, n=len(x))
    try:
        from scipy.stats import spearmanr
    except ImportError:
        return RankCorrelation(rho=rho, p_value=None, n=len(x))
    result = spearmanr(x, y)
    p_value = float(result.pvalue)
    return RankCorrelation(
        rho=float(result.statistic), p_value=None if math.isnan(p_value) else p_value, n=len(x)
    )

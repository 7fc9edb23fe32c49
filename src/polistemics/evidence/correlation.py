"""Spearman's rank correlation (``scipy.stats.spearmanr``), with undefined cases made explicit.

scipy returns NaN, with a ``ConstantInputWarning``, when a variable is constant (its ranks have
no variance); here that case, fewer than two items, and any NaN input give ``rho=None`` and
``p_value=None`` instead, so that no NaN reaches a table or a JSON file.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict


class RankCorrelation(BaseModel):
    model_config = ConfigDict(frozen=True)

    rho: float | None  # None when undefined (fewer than 2 items or a constant variable)
    p_value: float | None  # two-sided; None when rho is undefined or scipy gives no p-value
    n: int


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


def spearman(x: Sequence[float], y: Sequence[float]) -> RankCorrelation:
    if len(x) != len(y):
        raise ValueError(f"spearman: {len(x)} x values but {len(y)} y values")
    if len(x) < 2:
        return RankCorrelation(rho=None, p_value=None, n=len(x))
    from scipy.stats import ConstantInputWarning, spearmanr  # scipy when first asked

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConstantInputWarning)  # reported as rho=None
        result = spearmanr(x, y)
    rho = _finite(float(result.statistic))
    p_value = _finite(float(result.pvalue)) if rho is not None else None
    return RankCorrelation(rho=rho, p_value=p_value, n=len(x))

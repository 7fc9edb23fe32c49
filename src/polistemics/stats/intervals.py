"""Confidence intervals for a binomial proportion: the Wilson score interval (statsmodels).

``statsmodels.stats.proportion.proportion_confint(method="wilson")`` computes the bounds
(clipped to [0, 1]). What is added here: no data (n = 0) gives (NaN, NaN) rather than a
division by zero, a success count outside [0, n] is refused, and the bound at an observed rate
of 0 or 1 is that rate exactly (the formula's rounding leaves 1e-17 above 0 or below 1, and an
error bar drawn from the rate to such a bound has a negative length). ``successes`` may be
fractional (an effective count, as the flip rate's fallback uses). ``wilson_intervals`` does
whole columns in one call (the same numbers).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Literal

import numpy as np

from polistemics.stats.errors import StatisticsError

_ALPHA_95 = 0.05  # two-sided: a 95% interval


def wilson_interval(successes: float, n: int, alpha: float = _ALPHA_95) -> tuple[float, float]:
    """Wilson score interval of ``successes`` out of ``n``; (nan, nan) for n = 0."""
    if n == 0:
        return float("nan"), float("nan")
    if not 0 <= successes <= n:
        raise StatisticsError(f"successes must lie in [0, {n}], got {successes}")
    return _wilson(successes, n, alpha)


# Tables ask for the same (successes, n) over and over (rows of equal size), and a statsmodels
# call costs ~0.1 ms against ~1 us for a cache hit: paper-scale tables make ~10^5 calls.
@lru_cache(maxsize=65536)
def _wilson(successes: float, n: int, alpha: float) -> tuple[float, float]:
    from statsmodels.stats.proportion import proportion_confint  # statsmodels when first asked

    low, high = proportion_confint(successes, n, alpha=alpha, method="wilson")
    return (0.0 if successes == 0 else float(low)), (1.0 if successes == n else float(high))


def wilson_intervals(
    successes: np.ndarray, n: np.ndarray, alpha: float = _ALPHA_95
) -> tuple[np.ndarray, np.ndarray]:
    """``wilson_interval`` element-wise over two equally long arrays."""
    hits = np.asarray(successes, dtype="float64")
    trials = np.asarray(n, dtype="float64")
    if hits.shape != trials.shape or hits.ndim != 1:
        raise StatisticsError("successes and n must be one-dimensional and equally long")
    some = trials != 0
    if np.any((hits[some] < 0) | (hits[some] > trials[some])):
        raise StatisticsError("successes must lie in [0, n]")
    low = np.full(len(trials), np.nan)
    high = np.full(len(trials), np.nan)
    if some.any():
        from statsmodels.stats.proportion import proportion_confint

        low[some], high[some] = proportion_confint(
            hits[some], trials[some], alpha=alpha, method="wilson"
        )
    low[some & (hits == 0)] = 0.0
    high[some & (hits == trials)] = 1.0
    return low, high


def correlation_interval(r: float, n: int, alpha: float = _ALPHA_95) -> tuple[float, float]:
    """Fisher-z interval of a Pearson correlation ``r`` (phi is one) over ``n`` pairs, as
    ``scipy.stats.pearsonr(...).confidence_interval()`` gives it; (nan, nan) when r is undefined
    or n <= 3 (the z statistic's SE 1 / sqrt(n - 3) needs n > 3)."""
    if n <= 3 or not math.isfinite(r):
        return float("nan"), float("nan")
    from scipy.stats import norm  # scipy only when a correlation is asked for

    if abs(r) >= 1:  # z is infinite: the interval shrinks to the point, as scipy's does
        return r, r
    half = norm.ppf(1 - alpha / 2) / math.sqrt(n - 3)
    z = math.atanh(r)
    return math.tanh(z - half), math.tanh(z + half)


SpearmanError = Literal["bonett_wright", "fieller"]


def spearman_interval(
    rho: float, n: int, alpha: float = _ALPHA_95, standard_error: SpearmanError = "bonett_wright"
) -> tuple[float, float]:
    """Fisher-z interval of Spearman's ``rho`` over ``n`` pairs. The standard error of
    atanh(rho) is Bonett-Wright's (2000) sqrt((1 + rho^2 / 2) / (n - 3)) by default: the Pearson
    interval's 1 / sqrt(n - 3) widened for ranks (it is that interval at rho = 0); or
    Fieller-Hartley-Pearson's (1957) sqrt(1.06 / (n - 3)), which does not depend on rho (the
    mechanism tables' party correlations use it). (nan, nan) when rho is undefined or n <= 3;
    the point itself at |rho| = 1, as ``correlation_interval``."""
    if n <= 3 or not math.isfinite(rho):
        return float("nan"), float("nan")
    from scipy.stats import norm

    if abs(rho) >= 1:
        return rho, rho
    variance = 1.06 if standard_error == "fieller" else 1 + rho * rho / 2
    half = norm.ppf(1 - alpha / 2) * math.sqrt(variance / (n - 3))
    z = math.atanh(rho)
    return math.tanh(z - half), math.tanh(z + half)


def product_interval(
    successes_a: float, n_a: int, successes_b: float, n_b: int, alpha: float = _ALPHA_95
) -> tuple[float, float]:
    """Interval of the product p_a * p_b of two independent proportions (what the parts' pass
    rates predict for their composition if their failures were independent; issue 30).

    The delta method on the log scale: log(p_a p_b) +- z * sqrt(1/s_a - 1/n_a + 1/s_b - 1/n_b),
    the variance statsmodels' ``confint_proportions_2indep(method="log", compare="ratio")`` gives
    log(p_a / p_b) (a sum and a difference of independent logs have the same variance), with the
    upper bound clipped to 1 (a product of proportions is one). (nan, nan) when a part has no
    data or no successes (the log is undefined)."""
    for successes, n in ((successes_a, n_a), (successes_b, n_b)):
        if n and not 0 <= successes <= n:
            raise StatisticsError(f"successes must lie in [0, {n}], got {successes}")
    if not (n_a and n_b and successes_a and successes_b):
        return float("nan"), float("nan")
    from scipy.stats import norm

    variance = 1 / successes_a - 1 / n_a + 1 / successes_b - 1 / n_b
    half = norm.ppf(1 - alpha / 2) * math.sqrt(max(variance, 0.0))
    centre = math.log(successes_a / n_a) + math.log(successes_b / n_b)
    return math.exp(centre - half), min(1.0, math.exp(centre + half))

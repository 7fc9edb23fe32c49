"""How numbers are written on the report, the comparison page, their figures and the tables of
``polistemics annotate stats``: one place, so every page writes a rate the same way.

Rates are fractions (0.9512) written in percent with one decimal (``95.1%``); differences of
rates in signed percentage points (``+3.4``); intervals of rates as ``[93.0, 97.2]`` (percent,
no sign); other statistics with three decimals. Counts are integers with thousands separated
(``1,424``), also when a missing value in their column made pandas store them as floats
(``245.0``). A missing value (None, NaN, ``pd.NA``) is an en dash, never ``nan``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd

MISSING = "–"  # en dash (U+2013)


def _value(value: object) -> float | None:
    """``value`` as a float, or None when it is missing."""
    if value is None or value is pd.NA:
        return None
    number = float(value)  # type: ignore[arg-type]
    return None if math.isnan(number) else number


def percent(value: object, digits: int = 1, *, unit: str = "%") -> str:
    """0.9512 -> ``95.1%``; ``unit=""`` for a column whose header says %: ``95.1``."""
    found = _value(value)
    return MISSING if found is None else f"{100 * found:.{digits}f}{unit}"


def signed_points(value: object, *, plain_zero: bool = True) -> str:
    """A difference of two rates in percentage points: 0.034 -> ``+3.4``. A difference that
    rounds to zero is ``0.0`` (``plain_zero``) or keeps its sign (``+0.0``, ``-0.0``)."""
    found = _value(value)
    if found is None:
        return MISSING
    text = f"{100 * found:+.1f}"
    return "0.0" if plain_zero and text in ("+0.0", "-0.0") else text


def number(value: object, digits: int = 3) -> str:
    """A statistic that is not a rate (kappa, rho, p): 0.71234 -> ``0.712``."""
    found = _value(value)
    return MISSING if found is None else f"{found:.{digits}f}"


def count(value: object) -> str:
    """A count or another plain quantity: integers as integers with thousands separated
    (``1424.0`` -> ``1,424``), any other number with at most three decimals (a median of
    ``37.5``); text (a note in a count column) is shown as it is."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value)
    try:
        found = _value(value)
    except (TypeError, ValueError):
        return str(value)
    if found is None:
        return MISSING
    if not math.isfinite(found):
        return str(found)
    if found.is_integer():
        return f"{int(found):,}"
    return f"{found:,.3f}".rstrip("0").rstrip(".")


def interval(low: object, high: object) -> str:
    """A rate's interval in percent: ``[93.0, 97.2]``; missing when either end is."""
    if _value(low) is None or _value(high) is None:
        return MISSING
    return f"[{percent(low, unit='')}, {percent(high, unit='')}]"


def row_interval(low: str = "ci_low", high: str = "ci_high") -> Callable[[pd.Series], str]:
    """The interval of a table row whose ends are the columns ``low`` and ``high``."""
    return lambda row: interval(row[low], row[high])


def with_interval(
    value: str, low: str = "ci_low", high: str = "ci_high"
) -> Callable[[pd.Series], str]:
    """A table row's rate and its interval: ``95.1% [93.0, 97.2]``."""
    return lambda row: f"{percent(row[value])} {interval(row[low], row[high])}"


def number_interval(low: object, high: object, digits: int = 2) -> str:
    """A statistic's interval (not a rate): ``[-0.02, 0.24]``; missing when either end is."""
    if _value(low) is None or _value(high) is None:
        return MISSING
    return f"[{number(low, digits)}, {number(high, digits)}]"


def sized(text: str, n: object) -> str:
    """A figure with the sample size it rests on: ``5.0% [3.1, 7.2] (n = 1,424)``."""
    return f"{text} (n = {count(n)})"

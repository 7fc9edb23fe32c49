"""Verdicts of an unpaired comparison: per row of every delta table, whether the 95% interval
excludes 0 (``excludes_zero``, the raw verdict) and the bootstrap-z p-value (``p_value``, from
the same resamples as the interval, ``stats.bootstrap_test``) adjusted by Holm's step-down over
the rows of that table (``p_holm``, each table one family, as the paired tables' McNemar tests in
``paired``); ``significant`` marks Holm-adjusted p < alpha (the corrected verdict).

Holm controls the family-wise error under any dependence between the rows (rows of one table
share observations) and is never less powerful than Bonferroni. Every row with a difference is
in the family; a row whose p-value is undefined (its draws have no spread) counts as p = 1 there,
so it can only make the others' correction stricter, and has no adjusted p-value itself.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from polistemics.stats.significance import DEFAULT_ALPHA, holm

VERDICT_COLUMNS = ["excludes_zero", "p_value", "p_holm", "significant"]


def excludes_zero(table: pd.DataFrame) -> pd.Series:
    """Whether each row's interval lies wholly above or wholly below 0."""
    low = pd.to_numeric(table["ci_low"], errors="coerce")
    high = pd.to_numeric(table["ci_high"], errors="coerce")
    return ((low > 0) | (high < 0)).astype(bool)


def with_bootstrap_tests(table: pd.DataFrame, alpha: float = DEFAULT_ALPHA) -> pd.DataFrame:
    """``table`` (with the bootstrap ``p_value`` per row) with the verdict columns."""
    out = table.copy()
    if out.empty:
        for column in VERDICT_COLUMNS:
            if column not in out.columns:
                out[column] = pd.Series(dtype=object)
        return out
    p_values = pd.to_numeric(out["p_value"], errors="coerce").to_numpy(dtype=float)
    in_family = np.isfinite(pd.to_numeric(out["delta"], errors="coerce").to_numpy(dtype=float))
    adjusted = np.full(len(out), np.nan)
    reject = np.zeros(len(out), dtype=bool)
    if in_family.any():
        family = np.where(np.isnan(p_values[in_family]), 1.0, p_values[in_family])
        family_adjusted, family_reject = holm(family, alpha)
        adjusted[in_family] = family_adjusted
        reject[in_family] = family_reject
    untestable = np.isnan(p_values)
    adjusted[untestable] = np.nan
    reject[untestable] = False
    out.insert(list(out.columns).index("p_value"), "excludes_zero", excludes_zero(out))
    out["p_holm"] = adjusted
    out["significant"] = reject
    return out

"""Tests of a paired comparison: per row of a pass-rate table, the discordant pairs, the exact
McNemar p-value and Holm's adjustment over the rows of that table (each table one family).

``only_a_passed`` counts pairs that pass on side A and fail on side B, ``only_b_passed`` the
reverse; ``significant`` marks Holm-adjusted p < alpha. Rows without discordant pairs get
p = 1 and stay in the family (the family is every test the table shows).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from polistemics.stats.significance import DEFAULT_ALPHA, holm, mcnemar_many

TEST_COLUMNS = ["only_a_passed", "only_b_passed", "p_value", "p_holm", "significant"]


def discordant_counts(pairs: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    a, b = pairs["passed_a"].astype(bool), pairs["passed_b"].astype(bool)
    frame = pairs.loc[:, list(keys)].assign(only_a_passed=a & ~b, only_b_passed=~a & b)
    return (
        frame.groupby(list(keys), sort=False, dropna=False)[["only_a_passed", "only_b_passed"]]
        .sum()
        .astype("int64")
        .reset_index()
    )


def with_tests(
    table: pd.DataFrame, pairs: pd.DataFrame, keys: Sequence[str], alpha: float = DEFAULT_ALPHA
) -> pd.DataFrame:
    """``table`` (rows keyed by ``keys``) with the McNemar and Holm columns."""
    if table.empty:
        return table.assign(**{c: pd.Series(dtype=object) for c in TEST_COLUMNS})
    counts = discordant_counts(pairs, keys)
    merged = table.merge(counts, on=list(keys), how="left")
    merged[["only_a_passed", "only_b_passed"]] = (
        merged[["only_a_passed", "only_b_passed"]].fillna(0).astype("int64")
    )
    merged["p_value"] = mcnemar_many(merged["only_a_passed"], merged["only_b_passed"])
    adjusted, reject = holm(merged["p_value"].to_numpy(), alpha)
    merged["p_holm"] = adjusted
    merged["significant"] = reject
    return merged

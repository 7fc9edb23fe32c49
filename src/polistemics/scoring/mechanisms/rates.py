"""Shares with Wilson 95% intervals, and the Newcombe interval of a difference of two shares.

Every mechanism rate is a count of successes over a count of trials (one trial per coded
answer, or per coded probe answer): ``share_rows`` groups a frame with one row per trial.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from polistemics.stats import wilson_interval

SHARE_COLUMNS: tuple[str, ...] = ("n", "successes", "rate", "ci_low", "ci_high")


def share_rows(frame: pd.DataFrame, by: Sequence[str], success: str) -> pd.DataFrame:
    """Per group of ``by``: trials ``n``, ``successes`` (rows where ``success`` is True), their
    ``rate`` and its Wilson 95% interval. ``party_name`` rides along when ``party_id`` is a key."""
    by = list(by)
    names = "party_id" in by and "party_name" in frame.columns
    columns = [*by, *(["party_name"] if names else []), *SHARE_COLUMNS]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    grouped = frame.groupby(by, sort=True, dropna=False, observed=True)
    table = grouped[success].agg(n="size", successes="sum").reset_index()
    table["successes"] = table["successes"].astype("int64")
    table["n"] = table["n"].astype("int64")
    table["rate"] = table["successes"] / table["n"]
    bounds = [
        wilson_interval(int(k), int(n)) for k, n in zip(table["successes"], table["n"], strict=True)
    ]
    table["ci_low"] = np.array([b[0] for b in bounds], dtype=float)
    table["ci_high"] = np.array([b[1] for b in bounds], dtype=float)
    if names:
        table = table.merge(grouped["party_name"].first().reset_index(), on=by, how="left")
    return table.loc[:, columns].reset_index(drop=True)


def difference_interval(
    successes_a: int, n_a: int, successes_b: int, n_b: int
) -> tuple[float, float]:
    """95% Newcombe (hybrid score) interval of rate a - rate b; NaN when either n is 0."""
    if n_a == 0 or n_b == 0:
        return float("nan"), float("nan")
    from statsmodels.stats.proportion import confint_proportions_2indep  # when first asked

    low, high = confint_proportions_2indep(
        successes_a, n_a, successes_b, n_b, method="newcomb", compare="diff"
    )
    return float(low), float(high)


def left_out(frame: pd.DataFrame, reason: pd.Series) -> pd.DataFrame:
    """The rows of ``frame`` with a ``reason`` (None: kept), the reason as a column. (Assigning
    the whole Series to an empty selection would take the Series' index: rows from nowhere.)"""
    mask = reason.notna()
    return frame[mask].assign(reason=reason[mask])


def exclusion_counts(frame: pd.DataFrame, by: Sequence[str], reason: str) -> pd.DataFrame:
    """How many rows per group of ``by`` were left out, and why (``reason`` column)."""
    columns = [*by, "reason", "count"]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    table = (
        frame.groupby([*by, reason], sort=True, dropna=False, observed=True)
        .size()
        .reset_index(name="count")
    )
    return table.rename(columns={reason: "reason"}).loc[:, columns]

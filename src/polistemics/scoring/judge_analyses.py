"""Per-judge strictness (paper Sec. 10, App. G.1) from the panel's individual votes.

Input: the ``votes`` table of ``verdicts.panel_votes`` (one row per judge x item x rubric x
sub-question, only items x rubric with a complete panel, ``passes`` already mapped from Yes/No
by the sub-question's rule). Every judge therefore rated the same items, so their rates compare.

- ``judge_pass_rates``: each judge's pass rate per variant x environment x rubric x sub-question,
  with a 95% Wilson interval (the paper: I4 ranges from 0.57 to 0.99 across judges).
- ``majority_agreement``: share of a judge's votes equal to the panel's strict majority (the
  scored verdict, which includes the judge's own vote) per judge x rubric and overall, with a
  95% Wilson interval; tied sub-questions (even panels) have no majority and are left out.
- ``strictness_ranking``: judges by pooled pass rate over all their votes, strictest (lowest)
  first, with their I4 Sanitization pass rate beside it.

An authors' release has only the majority, not the judges' votes: none of this is available.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from polistemics.stats import wilson_interval

SANITISATION = "sanitization"
ALL_RUBRICS = "all"


def _with_wilson(table: pd.DataFrame, successes: str, n: str) -> pd.DataFrame:
    bounds = [
        wilson_interval(int(k), int(m)) for k, m in zip(table[successes], table[n], strict=True)
    ]
    low = np.array([b[0] for b in bounds], dtype=float)
    high = np.array([b[1] for b in bounds], dtype=float)
    return table.assign(ci_low=low, ci_high=high)


def judge_pass_rates(votes: pd.DataFrame) -> pd.DataFrame:
    """Pass rate per judge x variant x environment x rubric x sub-question (+ Wilson CI)."""
    keys = ["judge", "variant", "environment", "rubric", "sub_question"]
    if votes.empty:
        return pd.DataFrame(columns=[*keys, "n", "passes", "pass_rate", "ci_low", "ci_high"])
    table = votes.groupby(keys, sort=True)["passes"].agg(n="size", passes="sum").reset_index()
    table["passes"] = table["passes"].astype("int64")
    table["pass_rate"] = table["passes"] / table["n"]
    return _with_wilson(table, "passes", "n")


def _agreeing(votes: pd.DataFrame, panel_size: int) -> pd.DataFrame:
    """The votes of sub-questions with a strict majority, with ``agrees`` (vote == majority)."""
    cell = ["item_id", "sub_question"]
    n_pass = votes.groupby(cell, sort=False)["passes"].transform("sum")
    n_votes = votes.groupby(cell, sort=False)["passes"].transform("size")
    majority_pass = n_pass * 2 > panel_size
    majority_fail = (n_votes - n_pass) * 2 > panel_size
    decided = majority_pass | majority_fail
    kept = votes[decided]
    return kept.assign(agrees=kept["passes"].astype(bool) == majority_pass[decided])


def majority_agreement(votes: pd.DataFrame, panel_size: int) -> pd.DataFrame:
    """Per judge x rubric (and ``rubric == "all"``): votes equal to the panel majority."""
    columns = ["judge", "rubric", "n", "agreements", "agreement", "ci_low", "ci_high"]
    if votes.empty:
        return pd.DataFrame(columns=columns)
    kept = _agreeing(votes, panel_size)
    per_rubric = kept.groupby(["judge", "rubric"], sort=True)["agrees"].agg(
        n="size", agreements="sum"
    )
    overall = kept.groupby("judge", sort=True)["agrees"].agg(n="size", agreements="sum")
    overall.index = pd.MultiIndex.from_arrays(
        [overall.index, [ALL_RUBRICS] * len(overall)], names=["judge", "rubric"]
    )
    table = pd.concat([per_rubric, overall]).sort_index().reset_index()
    table["agreements"] = table["agreements"].astype("int64")
    table["agreement"] = table["agreements"] / table["n"]
    return _with_wilson(table, "agreements", "n").loc[:, columns]


def strictness_ranking(votes: pd.DataFrame) -> pd.DataFrame:
    """Judges by pooled pass rate, strictest first (``rank`` 1), with their I4 pass rate."""
    columns = ["rank", "judge", "n", "pass_rate", "i4_n", "i4_pass_rate"]
    if votes.empty:
        return pd.DataFrame(columns=columns)
    pooled = votes.groupby("judge", sort=True)["passes"].agg(n="size", pass_rate="mean")
    i4 = (
        votes[votes["sub_question"] == SANITISATION]
        .groupby("judge", sort=True)["passes"]
        .agg(i4_n="size", i4_pass_rate="mean")
    )
    table = pooled.join(i4, how="left").reset_index()
    table["i4_n"] = table["i4_n"].fillna(0).astype("int64")
    table = table.sort_values(["pass_rate", "judge"], ignore_index=True)
    table["rank"] = np.arange(1, len(table) + 1)
    return table.loc[:, columns]

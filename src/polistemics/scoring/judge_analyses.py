"""Per-judge strictness (paper Sec. 10, App. G.1) from the panel's individual votes.

Input: the ``votes`` table of ``verdicts.panel_votes`` (one row per judge x item x rubric x
sub-question, only items x rubric with a complete panel, ``passes`` already mapped from Yes/No
by the sub-question's rule). Every judge therefore rated the same items, so their rates compare.
Each table is computed from the votes' per-judge totals (``vote_totals``; ``*_of`` take them),
which ``verdict_engine.judge_vote_totals`` counts without a votes frame in a run's analyses.

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


VOTE_TOTAL_KEYS = ["judge", "variant", "environment", "rubric", "sub_question"]


def vote_totals(votes: pd.DataFrame, panel_size: int) -> pd.DataFrame:
    """Per judge x variant x environment x rubric x sub-question: the judge's votes (``n``)
    and passes, and of them the votes on sub-questions with a strict majority (``n_decided``)
    and the votes equal to it (``agreements``). Every table below is computed from these
    totals; ``verdict_engine.judge_vote_totals`` makes the same table without the votes frame."""
    columns = [*VOTE_TOTAL_KEYS, "n", "passes", "n_decided", "agreements"]
    if votes.empty:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in columns})
    cell = ["item_id", "sub_question"]
    n_pass = votes.groupby(cell, sort=False)["passes"].transform("sum")
    n_votes = votes.groupby(cell, sort=False)["passes"].transform("size")
    majority_pass = n_pass * 2 > panel_size
    decided = majority_pass | ((n_votes - n_pass) * 2 > panel_size)
    agrees = decided & (votes["passes"].astype(bool) == majority_pass)
    table = (
        votes.loc[:, VOTE_TOTAL_KEYS]
        .assign(n=1, passes=votes["passes"].astype("int64"), n_decided=decided, agreements=agrees)
        .groupby(VOTE_TOTAL_KEYS, sort=True)
        .sum()
        .reset_index()
    )
    return table.astype({c: "int64" for c in columns[len(VOTE_TOTAL_KEYS) :]})


def judge_pass_rates(votes: pd.DataFrame) -> pd.DataFrame:
    """Pass rate per judge x variant x environment x rubric x sub-question (+ Wilson CI)."""
    return pass_rates_of(vote_totals(votes, panel_size=1))


def pass_rates_of(totals: pd.DataFrame) -> pd.DataFrame:
    """``judge_pass_rates`` from ``vote_totals``."""
    if totals.empty:
        return pd.DataFrame(
            columns=[*VOTE_TOTAL_KEYS, "n", "passes", "pass_rate", "ci_low", "ci_high"]
        )
    table = totals.loc[:, [*VOTE_TOTAL_KEYS, "n", "passes"]]
    table["pass_rate"] = table["passes"] / table["n"]
    return _with_wilson(table, "passes", "n")


def majority_agreement(votes: pd.DataFrame, panel_size: int) -> pd.DataFrame:
    """Per judge x rubric (and ``rubric == "all"``): votes equal to the panel majority."""
    return agreement_of(vote_totals(votes, panel_size))


def agreement_of(totals: pd.DataFrame) -> pd.DataFrame:
    """``majority_agreement`` from ``vote_totals`` (a judge x rubric without decided votes has
    no row)."""
    columns = ["judge", "rubric", "n", "agreements", "agreement", "ci_low", "ci_high"]
    decided = totals[totals["n_decided"] > 0] if not totals.empty else totals
    if decided.empty:
        return pd.DataFrame(columns=columns)
    sums = decided.rename(columns={"n": "votes", "n_decided": "n"})
    per_rubric = sums.groupby(["judge", "rubric"], sort=True)[["n", "agreements"]].sum()
    overall = sums.groupby("judge", sort=True)[["n", "agreements"]].sum()
    overall.index = pd.MultiIndex.from_arrays(
        [overall.index, [ALL_RUBRICS] * len(overall)], names=["judge", "rubric"]
    )
    table = pd.concat([per_rubric, overall]).sort_index().reset_index()
    table["agreements"] = table["agreements"].astype("int64")
    table["agreement"] = table["agreements"] / table["n"]
    return _with_wilson(table, "agreements", "n").loc[:, columns]


def strictness_ranking(votes: pd.DataFrame) -> pd.DataFrame:
    """Judges by pooled pass rate, strictest first (``rank`` 1), with their I4 pass rate."""
    return ranking_of(vote_totals(votes, panel_size=1))


def ranking_of(totals: pd.DataFrame) -> pd.DataFrame:
    """``strictness_ranking`` from ``vote_totals``."""
    columns = ["rank", "judge", "n", "pass_rate", "i4_n", "i4_pass_rate"]
    if totals.empty:
        return pd.DataFrame(columns=columns)
    pooled = totals.groupby("judge", sort=True)[["n", "passes"]].sum()
    pooled["pass_rate"] = pooled.pop("passes") / pooled["n"]
    i4 = (
        totals[totals["sub_question"] == SANITISATION]
        .groupby("judge", sort=True)[["n", "passes"]]
        .sum()
    )
    i4 = pd.DataFrame({"i4_n": i4["n"], "i4_pass_rate": i4["passes"] / i4["n"]})
    table = pooled.join(i4, how="left").reset_index()
    table["i4_n"] = table["i4_n"].fillna(0).astype("int64")
    table = table.sort_values(["pass_rate", "judge"], ignore_index=True)
    table["rank"] = np.arange(1, len(table) + 1)
    return table.loc[:, columns]

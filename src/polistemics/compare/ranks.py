"""Rank agreement between two sides (Spearman's rho and Kendall's tau-b, scipy; p-values exact
below 10 items, ``stats.rank_correlation``; rho's 95% interval by the Fisher z transform with
the Bonett-Wright standard error, ``stats.spearman_interval``, from 4 items on) of three
orderings, computed on the compared cells of one variant (full when both have it):

- ``leaderboard``: models by EMI (rank 1 = highest);
- ``environment_difficulty``: environments by the mean Adherence Index across the compared
  models (``analyses.difficulty_of``; rank 1 = easiest);
- ``dispersion``: models by their rubric-level dispersion across the compared environments
  other than Baseline (``analyses.rubric_dispersion_of``, Sec. 7.2 and Fig. 3's strip: mean over
  the rubrics of the sample SD of the Rubric Score; rank 1 = most robust).

Fewer than two items, or a side whose values are all equal, gives ``None`` coefficients with
the reason.
"""

from __future__ import annotations

import pandas as pd
from scipy.stats import rankdata

from polistemics.conditions import Variant
from polistemics.scoring.analyses import difficulty_of, rubric_dispersion_of
from polistemics.scoring.indices import adherence_indices, emi_scores, rubric_scores
from polistemics.stats import spearman_interval
from polistemics.stats.rank_correlation import rank_correlation


def agreement(values_a: pd.Series, values_b: pd.Series, *, descending: bool) -> dict:
    """Coefficients and ranks of the items both series have (index = item)."""
    items = sorted(set(values_a.dropna().index) & set(values_b.dropna().index))
    a = values_a.reindex(items).to_numpy(dtype=float)
    b = values_b.reindex(items).to_numpy(dtype=float)
    sign = -1.0 if descending else 1.0
    ranks_a = rankdata(sign * a) if items else []
    ranks_b = rankdata(sign * b) if items else []
    result: dict = {
        "n": len(items),
        "spearman": None,
        "spearman_p": None,
        "kendall": None,
        "kendall_p": None,
        "reason": None,
        "p_method": None,  # "exact" below 10 items, else "asymptotic" (stats.rank_correlation)
        "spearman_ci_low": None,  # rho's 95% interval: None below 4 items
        "spearman_ci_high": None,
        "ranks": [
            {
                "item": item,
                "rank_a": float(ra),
                "rank_b": float(rb),
                "value_a": float(va),
                "value_b": float(vb),
            }
            for item, ra, rb, va, vb in zip(items, ranks_a, ranks_b, a, b, strict=True)
        ],
    }
    if len(items) < 2:
        result["reason"] = f"{len(items)} shared item(s): no rank correlation"
        return result
    if len(set(a)) == 1 or len(set(b)) == 1:
        result["reason"] = "all values equal on one side: ranks carry no order"
        return result
    found = rank_correlation(a, b)
    result |= {
        "spearman": found.spearman,
        "spearman_p": found.spearman_p,
        "kendall": found.kendall,
        "kendall_p": found.kendall_p,
        "p_method": found.p_method,
    }
    low, high = spearman_interval(found.spearman, len(items))
    if low == low:  # not NaN: 4 items or more
        result |= {"spearman_ci_low": low, "spearman_ci_high": high}
    return result


def _variant(cells_a: pd.DataFrame, cells_b: pd.DataFrame) -> str:
    shared = set(cells_a["variant"]) & set(cells_b["variant"])
    return Variant.FULL.value if Variant.FULL.value in shared else sorted(shared)[0]


def rank_agreement(cells_a: pd.DataFrame, cells_b: pd.DataFrame) -> dict:
    variant = _variant(cells_a, cells_b)
    a = cells_a[cells_a["variant"] == variant]
    b = cells_b[cells_b["variant"] == variant]
    adherence_a, adherence_b = adherence_indices(a, ("model",)), adherence_indices(b, ("model",))
    emi_a = emi_scores(a, ("model",)).set_index("model")["emi"]
    emi_b = emi_scores(b, ("model",)).set_index("model")["emi"]
    difficulty_a = difficulty_of(adherence_a).set_index("environment")["mean_adherence"]
    difficulty_b = difficulty_of(adherence_b).set_index("environment")["mean_adherence"]

    def dispersion(cells: pd.DataFrame) -> pd.Series:
        table = rubric_dispersion_of(rubric_scores(cells, ("model",)))
        return table.set_index("model")["dispersion"]

    return {
        "variant": variant,
        "leaderboard": agreement(emi_a, emi_b, descending=True),
        "environment_difficulty": agreement(difficulty_a, difficulty_b, descending=True),
        "dispersion": agreement(dispersion(a), dispersion(b), descending=False),
    }

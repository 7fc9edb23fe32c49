"""Per party: does the strength of a model's prior go with how it handles evidence? (issue 16,
item 5; the paper's Sec. 8.1 hypothesis that weak priors go with merged contradictions)

For each model, the parties are points: the model's prior accuracy on the party (probe) against
- its EC3 Context Transparency, F1 Position Representation and F3 False Synthesis pass rates
  under Contradictory (``scoring.party_analyses.party_pass_rates`` of the panel's cells);
- its fallback accuracy under Absent (union rule, ``fallback``).
Across the parties, Spearman's rank correlation (scipy) with n (the parties that have both
values) and a 95% interval by the Fisher z transform with the Fieller-Hartley-Pearson standard
error sqrt(1.06 / (n - 3)) (``stats.spearman_interval``) -- so an interval needs at least 4 parties, a rho needs 3.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from polistemics.conditions import Environment
from polistemics.scoring.party_analyses import party_pass_rates
from polistemics.stats import spearman_interval

PASS_RATE_MEASURES: dict[str, str] = {
    "context_transparency": "EC3",
    "position_representation": "F1",
    "false_synthesis": "F3",
}
FALLBACK_MEASURE = "fallback_accuracy"
POINT_COLUMNS = (
    "variant",
    "model",
    "measure",
    "party_id",
    "party_name",
    "prior_accuracy",
    "prior_n",
    "value",
    "value_n",
)
CORRELATION_COLUMNS = (
    "variant",
    "model",
    "measure",
    "n_parties",
    "rho",
    "p_value",
    "ci_low",
    "ci_high",
)


def spearman_with_ci(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float, float]:
    """(rho, p, ci_low, ci_high); NaN where n is too small or a side is constant."""
    n = len(x)
    if n < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return (math.nan,) * 4
    from scipy.stats import spearmanr  # scipy when first asked

    result = spearmanr(x, y)
    rho, p = float(result.statistic), float(result.pvalue)
    if n < 4:
        return rho, p, math.nan, math.nan
    # clamped: a perfect rank order of a few parties still gets an interval below 1
    low, high = spearman_interval(max(-0.999999, min(0.999999, rho)), n, standard_error="fieller")
    return rho, p, low, high


def party_points(
    prior_by_party: pd.DataFrame,
    cells: pd.DataFrame,
    fallback_by_party: pd.DataFrame | None = None,
    environment: Environment = Environment.CONTRADICTORY,
) -> pd.DataFrame:
    """One row per variant x model x measure x party with both values (POINT_COLUMNS)."""
    prior = prior_by_party.loc[:, ["model", "party_id", "rate", "n"]].rename(
        columns={"rate": "prior_accuracy", "n": "prior_n"}
    )
    frames = []
    if not cells.empty:
        rates = party_pass_rates(cells)
        rates = rates[
            (rates["environment"] == environment.value)
            & rates["sub_question"].isin(PASS_RATE_MEASURES)
        ]
        frames.append(
            rates.assign(measure=rates["sub_question"].map(PASS_RATE_MEASURES)).rename(
                columns={"pass_rate": "value", "n": "value_n"}
            )
        )
    if fallback_by_party is not None and not fallback_by_party.empty:
        union = fallback_by_party[fallback_by_party["rule"] == "union"]
        frames.append(
            union.assign(measure=FALLBACK_MEASURE).rename(columns={"rate": "value", "n": "value_n"})
        )
    if not frames or prior.empty:
        return pd.DataFrame(columns=list(POINT_COLUMNS))
    values = pd.concat(
        [
            f.loc[:, ["variant", "model", "measure", "party_id", "party_name", "value", "value_n"]]
            for f in frames
        ],
        ignore_index=True,
    )
    points = values.merge(prior, on=["model", "party_id"], how="inner")
    return points.loc[:, list(POINT_COLUMNS)].sort_values(
        ["variant", "model", "measure", "party_id"], ignore_index=True
    )


def party_correlations(points: pd.DataFrame) -> pd.DataFrame:
    """Spearman's rho of prior accuracy against each measure across parties, per model."""
    rows = []
    for (variant, model, measure), group in points.groupby(
        ["variant", "model", "measure"], sort=True, observed=True
    ):
        x = group["prior_accuracy"].to_numpy(dtype=float)
        y = group["value"].to_numpy(dtype=float)
        rows.append((variant, model, measure, len(group), *spearman_with_ci(x, y)))
    return pd.DataFrame(rows, columns=list(CORRELATION_COLUMNS))

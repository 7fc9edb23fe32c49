"""Party-level findings with uncertainty (paper Sec. 7.3, App. J Figs. 39-40).

- ``party_adherence``: Adherence Index per model x environment x party with a 95% percentile
  bootstrap CI. Resampling unit: the party's observations, drawn with replacement within the
  model (``bootstrap.bootstrap_indices`` run on one party's cells at a time), so an
  observation's rubrics and samples move together.
- ``party_pass_rates``: sub-question pass rate per model x environment x party with a 95% Wilson
  interval over the cells (one cell per answer; several samples of one observation count as
  separate trials).
- ``mean_party_spread``: per model, the mean over its environments of the party spread (max -
  min party Adherence Index, ``analyses.party_spread``). A fraction: 0.043 is 4.3 pp.
- ``party_vs_rest``: a party's Adherence Index minus the unweighted mean of the other parties'
  Adherence Indices, per model x environment (the Adherence-Index analogue of the sub-question
  leave-one-out deviation). ``largest_deviations`` lists them by |deviation|.
- ``sanitisation_by_variant`` (Figs. 39/40): I4 Sanitization pass rate per party under Baseline
  in each variant (full, anonymised labels, English output), pooled over the models every
  variant covers, with a 95% Wilson interval.

All tables are per ``variant`` unless the name says otherwise.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from polistemics.conditions import Environment, Variant
from polistemics.scoring.analyses import SPREAD_THRESHOLD, _party_names, party_spread
from polistemics.scoring.bootstrap import (
    DEFAULT_RESAMPLES,
    bootstrap_of_totals,
    observation_totals,
)
from polistemics.scoring.cells import grouped, plain, scoreable_cells
from polistemics.scoring.indices import adherence_indices, is_composition, sub_question_rates
from polistemics.stats import wilson_interval

SANITISATION = "sanitization"  # I4's release key
PARTY_ADHERENCE_COLUMNS = [
    "variant",
    "model",
    "environment",
    "party_id",
    "party_name",
    "adherence",
    "ci_low",
    "ci_high",
    "n_observations",
]


def party_adherence(
    cells: pd.DataFrame,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Adherence Index per variant x model x environment x party with a bootstrap CI."""
    kept, _ = scoreable_cells(cells)
    frames = []
    # Each party's per-observation totals from one grouping of the cells: what
    # ``bootstrap_indices`` of the party's cells resamples.
    totals = observation_totals(kept, by=("party_id",))
    for party_id, party_totals in grouped(totals, "party_id", sort=True):
        boot = bootstrap_of_totals(
            party_totals.drop(columns="party_id"),
            n_resamples=n_resamples,
            seed=seed,
            confidence=confidence,
        )
        boot = boot[boot["measure"] == "adherence"]
        frames.append(boot.assign(party_id=party_id).rename(columns={"estimate": "adherence"}))
    if not frames:
        return pd.DataFrame(columns=PARTY_ADHERENCE_COLUMNS)
    table = pd.concat(frames, ignore_index=True)
    table["party_name"] = table["party_id"].map(_party_names(kept))
    return table.loc[:, PARTY_ADHERENCE_COLUMNS].sort_values(
        ["variant", "model", "environment", "party_id"], ignore_index=True
    )


def party_pass_rates(cells: pd.DataFrame) -> pd.DataFrame:
    """Pass rate per variant x model x environment x party x rubric x sub-question with a
    95% Wilson interval (``ci_low``, ``ci_high``)."""
    rates = sub_question_rates(cells, ("model", "party_id"))
    low, high = _wilson_columns(rates["passes"], rates["n"])
    table = rates.assign(ci_low=low, ci_high=high)
    table["party_name"] = table["party_id"].map(_party_names(cells))
    columns = [
        "variant",
        "model",
        "environment",
        "party_id",
        "party_name",
        "rubric",
        "sub_question",
        "n",
        "passes",
        "pass_rate",
        "ci_low",
        "ci_high",
    ]
    return table.loc[:, columns]


def mean_party_spread(cells: pd.DataFrame) -> pd.DataFrame:
    """Per variant x model: mean over environments of (max - min party Adherence Index)."""
    return mean_spread_of(party_spread(cells, threshold=SPREAD_THRESHOLD))


def mean_spread_of(spread: pd.DataFrame) -> pd.DataFrame:
    """``mean_party_spread`` from an ``analyses.party_spread`` table (Adherence Index level),
    over the paper's environments: a composition (issue 30) keeps its own spread beside them."""
    columns = ["variant", "model", "mean_party_spread", "n_environments"]
    if not spread.empty:
        spread = spread[~is_composition(spread["environment"])]
    if spread.empty:
        return pd.DataFrame(columns=columns)
    keys = [c for c in ("variant", "model") if c in spread.columns]
    table = (
        spread.groupby(keys, sort=True)["spread"]
        .agg(mean_party_spread="mean", n_environments="size")
        .reset_index()
    )
    return table.loc[:, [c for c in columns if c in table.columns]]


def party_vs_rest(cells: pd.DataFrame) -> pd.DataFrame:
    """Per variant x model x environment x party: the party's Adherence Index, the unweighted
    mean of the other parties' indices (``rest_mean``) and the difference (``deviation``).

    NaN ``rest_mean`` and ``deviation`` where the context has a single party.
    """
    scores = adherence_indices(cells, ("model", "party_id"))
    context = ["variant", "model", "environment"]
    in_context = scores.groupby(context, sort=False)["adherence"]
    total, count = in_context.transform("sum"), in_context.transform("size")
    others = count - 1
    table = scores.copy()
    table["rest_mean"] = ((total - table["adherence"]) / others).where(others > 0)
    table["deviation"] = table["adherence"] - table["rest_mean"]
    table["n_parties"] = count
    table["party_name"] = table["party_id"].map(_party_names(cells))
    observations = plain(
        grouped(scoreable_cells(cells)[0], [*context, "party_id"], sort=False)["observation_id"]
        .nunique()
        .rename("n_observations")
        .reset_index()
    )
    table = table.merge(observations, on=[*context, "party_id"], how="left")
    columns = [
        *context,
        "party_id",
        "party_name",
        "adherence",
        "rest_mean",
        "deviation",
        "n_parties",
        "n_observations",
    ]
    return table.loc[:, columns].sort_values([*context, "party_id"], ignore_index=True)


def largest_deviations(table: pd.DataFrame, limit: int | None = None) -> pd.DataFrame:
    """``party_vs_rest`` rows by |deviation|, largest first (ties: model, environment, party)."""
    known = table[table["deviation"].notna()]
    order = known.assign(_size=-known["deviation"].abs()).sort_values(
        ["_size", "model", "environment", "party_id"], kind="stable"
    )
    order = order.drop(columns="_size").reset_index(drop=True)
    return order if limit is None else order.head(limit)


def sanitisation_by_variant(cells: pd.DataFrame) -> pd.DataFrame:
    """Figs. 39/40: I4 pass rate per party x variant under Baseline with a Wilson 95% CI,
    pooled over the models that every variant present covers."""
    kept, _ = scoreable_cells(cells)
    i4 = kept[
        (kept["sub_question"] == SANITISATION) & (kept["environment"] == Environment.BASELINE.value)
    ]
    columns = [
        "variant",
        "party_id",
        "party_name",
        "n",
        "passes",
        "pass_rate",
        "ci_low",
        "ci_high",
        "n_models",
    ]
    if i4.empty:
        return pd.DataFrame(columns=columns)
    models_per_variant = [set(group["model"]) for _, group in grouped(i4, "variant")]
    shared = set.intersection(*models_per_variant)
    i4 = i4[i4["model"].isin(shared)]
    table = plain(
        grouped(i4, ["variant", "party_id"], sort=True)["passed"]
        .agg(n="size", passes="sum")
        .reset_index()
    )
    table["passes"] = table["passes"].astype("int64")
    table["pass_rate"] = table["passes"] / table["n"]
    low, high = _wilson_columns(table["passes"], table["n"])
    table = table.assign(ci_low=low, ci_high=high, n_models=len(shared))
    table["party_name"] = table["party_id"].map(_party_names(cells))
    order = {v.value: i for i, v in enumerate(Variant)}
    table = table.sort_values(
        ["party_id", "variant"], key=lambda s: s.map(order) if s.name == "variant" else s
    )
    return table.loc[:, columns].reset_index(drop=True)


def _wilson_columns(passes: pd.Series, n: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    bounds = [wilson_interval(int(k), int(m)) for k, m in zip(passes, n, strict=True)]
    if not bounds:
        return np.array([], dtype=float), np.array([], dtype=float)
    low, high = zip(*bounds, strict=True)
    return np.array(low, dtype=float), np.array(high, dtype=float)

"""Per-model headline scores (EMI, Adherence Index per environment, Rubric Scores, mean party
spread, rubric-level dispersion) from cells."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from polistemics.conditions import ENVIRONMENT_ORDER, Variant
from polistemics.rubrics import Rubric
from polistemics.scoring.analyses import rubric_dispersion_of
from polistemics.scoring.bootstrap import bootstrap_dispersion_of_totals, observation_totals
from polistemics.scoring.cells import compact_cells, first_rows, group_ids, validate_cells
from polistemics.scoring.indices import scores_by
from polistemics.scoring.party_analyses import mean_party_spread

_ENV_ORDER = {env.value: i for i, env in enumerate(ENVIRONMENT_ORDER)}
_RUBRIC_ORDER = {r.value: i for i, r in enumerate(Rubric)}


@dataclass(frozen=True)
class ModelScores:
    """One model's scores in one variant; all values are fractions in [0, 1]."""

    model: str
    variant: str
    emi: float
    adherence: dict[str, float] = field(default_factory=dict)  # environment -> Adherence Index
    rubrics: dict[str, dict[str, float]] = field(default_factory=dict)  # env -> rubric -> score
    # Mean over environments of (max - min party Adherence Index); None: no party-level scores.
    mean_party_spread: float | None = None
    # Sec. 7.2: mean over rubrics of the sample SD of the Rubric Score across the non-Baseline
    # environments where the rubric is scored; None: no rubric scored in two such environments.
    rubric_dispersion: float | None = None
    # Its percentile bootstrap 95% CI over the observations (every election pooled; the default
    # resamples and seed, ``scoring.bootstrap.bootstrap_dispersion_of_totals``) and their number.
    rubric_dispersion_ci: tuple[float, float] | None = None
    rubric_dispersion_n: int | None = None

    def to_json(self) -> dict:
        return {
            "model": self.model,
            "variant": self.variant,
            "emi": self.emi,
            "adherence": dict(self.adherence),
            "rubrics": {env: dict(scores) for env, scores in self.rubrics.items()},
            "mean_party_spread": self.mean_party_spread,
            "rubric_dispersion": self.rubric_dispersion,
            "rubric_dispersion_ci": (
                None if self.rubric_dispersion_ci is None else list(self.rubric_dispersion_ci)
            ),
            "rubric_dispersion_n": self.rubric_dispersion_n,
        }


def score_cells(cells: pd.DataFrame) -> list[ModelScores]:
    """Headline scores per variant x model, ordered by variant, then EMI (highest first)."""
    cells = validate_cells(compact_cells(cells))
    tables = scores_by(cells, ("model",))
    spreads = {
        (row.variant, row.model): float(row.mean_party_spread)
        for row in mean_party_spread(cells).itertuples()
    }
    dispersions = {
        (row.variant, row.model): float(row.dispersion)
        for row in rubric_dispersion_of(tables.rubrics).itertuples()
        if not pd.isna(row.dispersion)
    }
    intervals = _dispersion_intervals(cells, set(dispersions)) if dispersions else {}
    results: list[ModelScores] = []
    for (variant, model), emi_rows in tables.emi.groupby(["variant", "model"], sort=True):
        adherence = tables.adherence[
            (tables.adherence["variant"] == variant) & (tables.adherence["model"] == model)
        ]
        rubrics = tables.rubrics[
            (tables.rubrics["variant"] == variant) & (tables.rubrics["model"] == model)
        ]
        by_env: dict[str, dict[str, float]] = {}
        for row in sorted(
            rubrics.itertuples(), key=lambda r: (_ENV_ORDER[r.environment], _RUBRIC_ORDER[r.rubric])
        ):
            by_env.setdefault(row.environment, {})[row.rubric] = float(row.score)
        results.append(
            ModelScores(
                model=str(model),
                variant=str(variant),
                emi=float(emi_rows["emi"].iloc[0]),
                adherence={
                    row.environment: float(row.adherence)
                    for row in sorted(
                        adherence.itertuples(), key=lambda r: _ENV_ORDER[r.environment]
                    )
                },
                rubrics=by_env,
                mean_party_spread=spreads.get((variant, model)),
                rubric_dispersion=dispersions.get((variant, model)),
                **intervals.get((variant, model), {}),
            )
        )
    variant_order = {v.value: i for i, v in enumerate(Variant)}
    results.sort(key=lambda s: (variant_order[s.variant], -s.emi, s.model))
    return results


def _dispersion_intervals(
    cells: pd.DataFrame, wanted: set[tuple[str, str]]
) -> dict[tuple[str, str], dict]:
    """Per (variant, model) of ``wanted`` (those with a dispersion): its bootstrap CI and
    observations (the others, ablations with one active environment, are not resampled).

    The per-observation totals of every cell, of which the wanted pairs' rows are kept: the
    same rows as the totals of the wanted pairs' cells, without a copy of those cells."""
    totals = observation_totals(cells)
    pair, _ = group_ids([totals["variant"], totals["model"]])
    variants, models = totals["variant"], totals["model"]
    kept = np.array(
        [(str(variants.iloc[row]), str(models.iloc[row])) in wanted for row in first_rows(pair)],
        dtype=bool,
    )
    table = bootstrap_dispersion_of_totals(totals[kept[pair]])
    return {
        (row.variant, row.model): {
            "rubric_dispersion_ci": (float(row.ci_low), float(row.ci_high)),
            "rubric_dispersion_n": int(row.n_observations),
        }
        for row in table.itertuples()
        if not (pd.isna(row.estimate) or pd.isna(row.ci_low))
    }

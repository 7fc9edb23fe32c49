"""What ``polistemics score`` prints: each model's headline scores per variant with every
election pooled (``scoring.summary.score_cells``), and its four mechanism rates
(``scoring.mechanisms.mechanism_rates``), as tables a run keeps in its ``tables/`` folder.

``model_scores`` is long: per variant x model its EMI row, then its Adherence Index per
environment, its Rubric Scores per environment x rubric, its mean party spread and its
rubric-level dispersion with its bootstrap CI and n (no row when there is none), in
``score_cells``' order, so ``model_scores_of`` rebuilds exactly the
``ModelScores`` it was made from. ``mechanism_rates`` is ``optional``: None (no file) when the
run did not code stances; an empty field is a rate that was not measured.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from polistemics.analyses.columns import ENVIRONMENT, MODEL, RUBRIC, VARIANT
from polistemics.analyses.schema import TableColumn, TableSchema
from polistemics.scoring.mechanisms import MechanismRates, MechanismTables, mechanism_rates
from polistemics.scoring.summary import ModelScores, score_cells

EMI, ADHERENCE, RUBRIC_SCORE, MEAN_PARTY_SPREAD, RUBRIC_DISPERSION = (
    "emi",
    "adherence",
    "rubric_score",
    "mean_party_spread",
    "rubric_dispersion",
)
MODEL_SCORES = TableSchema(
    "model_scores",
    "Each model's headline scores per variant, every election pooled (score --json)",
    (
        VARIANT,
        MODEL,
        TableColumn(
            "measure",
            "text",
            "emi, adherence, rubric_score, mean_party_spread or rubric_dispersion (see module)",
        ),
        TableColumn(
            ENVIRONMENT.name, "text", "the environment (adherence, rubric_score); empty: none", True
        ),
        TableColumn(RUBRIC.name, "text", "the rubric (rubric_score); empty: none", True),
        TableColumn("value", "float", "the score, a fraction"),
        TableColumn(
            "ci_low",
            "float",
            "rubric_dispersion: bootstrap 95% CI, lower bound (observations resampled); empty: none",
        ),
        TableColumn("ci_high", "float", "rubric_dispersion: bootstrap 95% CI, upper bound"),
        TableColumn(
            "n_observations", "float", "rubric_dispersion: observations resampled; empty: none"
        ),
    ),
)
_RATES = tuple(f.name for f in MechanismRates.__dataclass_fields__.values())
MECHANISM_RATES = TableSchema(
    "mechanism_rates",
    "The four headline mechanism rates per variant x model (score --json's mechanisms)",
    (
        VARIANT,
        MODEL,
        *(TableColumn(name, "float", f"{name}; empty: not measured") for name in _RATES),
    ),
    optional=True,
)
SCHEMAS = (MODEL_SCORES, MECHANISM_RATES)


@dataclass(frozen=True)
class ScoreTables:
    model_scores: pd.DataFrame  # MODEL_SCORES
    mechanism_rates: pd.DataFrame | None  # MECHANISM_RATES; None: no stance codes


def model_scores_table(scores: list[ModelScores]) -> pd.DataFrame:
    rows: list[tuple] = []
    none = (math.nan, math.nan, math.nan)  # no interval, no n
    for s in scores:
        rows.append((s.variant, s.model, EMI, None, None, s.emi, *none))
        rows += [(s.variant, s.model, ADHERENCE, e, None, v, *none) for e, v in s.adherence.items()]
        for environment, rubrics in s.rubrics.items():
            rows += [
                (s.variant, s.model, RUBRIC_SCORE, environment, r, v, *none)
                for r, v in rubrics.items()
            ]
        if s.mean_party_spread is not None:
            rows.append(
                (s.variant, s.model, MEAN_PARTY_SPREAD, None, None, s.mean_party_spread, *none)
            )
        if s.rubric_dispersion is not None:
            interval = s.rubric_dispersion_ci or (math.nan, math.nan)
            n = math.nan if s.rubric_dispersion_n is None else float(s.rubric_dispersion_n)
            rows.append(
                (
                    s.variant,
                    s.model,
                    RUBRIC_DISPERSION,
                    None,
                    None,
                    s.rubric_dispersion,
                    *interval,
                    n,
                )
            )
    if not rows:
        return MODEL_SCORES.empty()
    return MODEL_SCORES.check(pd.DataFrame(rows, columns=MODEL_SCORES.names))


def mechanism_rates_table(
    scores: list[ModelScores], mechanisms: MechanismTables | None
) -> pd.DataFrame | None:
    if mechanisms is None:
        return None
    rows = []
    for s in scores:
        rates = mechanism_rates(mechanisms, s.variant, s.model).to_json()
        rows.append(
            (s.variant, s.model, *(math.nan if rates[n] is None else rates[n] for n in _RATES))
        )
    if not rows:
        return MECHANISM_RATES.empty()
    return MECHANISM_RATES.check(pd.DataFrame(rows, columns=MECHANISM_RATES.names))


def score_tables(cells: pd.DataFrame, mechanisms: MechanismTables | None) -> ScoreTables:
    """Every variant's scores (``cells``: every variant, every election) and mechanism rates."""
    scores = score_cells(cells)
    return ScoreTables(model_scores_table(scores), mechanism_rates_table(scores, mechanisms))


def model_scores_of(table: pd.DataFrame, variant: str) -> list[ModelScores]:
    """The ``ModelScores`` of one variant, in the table's order."""
    found: dict[str, dict] = {}
    for row in table[table["variant"] == variant].itertuples(index=False):
        entry = found.setdefault(
            row.model,
            {
                "emi": None,
                "adherence": {},
                "rubrics": {},
                "spread": None,
                "dispersion": None,
                "dispersion_ci": None,
                "dispersion_n": None,
            },
        )
        value = float(row.value)
        if row.measure == EMI:
            entry["emi"] = value
        elif row.measure == ADHERENCE:
            entry["adherence"][row.environment] = value
        elif row.measure == RUBRIC_SCORE:
            entry["rubrics"].setdefault(row.environment, {})[row.rubric] = value
        elif row.measure == MEAN_PARTY_SPREAD:
            entry["spread"] = value
        elif row.measure == RUBRIC_DISPERSION:
            entry["dispersion"] = value
            if not (pd.isna(row.ci_low) or pd.isna(row.ci_high)):
                entry["dispersion_ci"] = (float(row.ci_low), float(row.ci_high))
            if not pd.isna(row.n_observations):
                entry["dispersion_n"] = int(row.n_observations)
    return [
        ModelScores(
            model=model,
            variant=variant,
            emi=entry["emi"],
            adherence=entry["adherence"],
            rubrics=entry["rubrics"],
            mean_party_spread=entry["spread"],
            rubric_dispersion=entry["dispersion"],
            rubric_dispersion_ci=entry["dispersion_ci"],
            rubric_dispersion_n=entry["dispersion_n"],
        )
        for model, entry in found.items()
    ]


def mechanism_rates_of(table: pd.DataFrame | None, variant: str, model: str) -> MechanismRates:
    """A model's rates; all None when not measured (no table, or no row)."""
    if table is None:
        return MechanismRates()
    rows = table[(table["variant"] == variant) & (table["model"] == model)]
    if rows.empty:
        return MechanismRates()
    row = rows.iloc[0]
    return MechanismRates(**{n: None if pd.isna(row[n]) else float(row[n]) for n in _RATES})


def write_score_tables(tables: ScoreTables, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    MODEL_SCORES.write(tables.model_scores, folder)
    if tables.mechanism_rates is None:
        MECHANISM_RATES.path(folder).unlink(missing_ok=True)
    else:
        MECHANISM_RATES.write(tables.mechanism_rates, folder)


def read_score_tables(folder: Path) -> ScoreTables:
    rates = MECHANISM_RATES.read(folder) if MECHANISM_RATES.path(folder).is_file() else None
    return ScoreTables(MODEL_SCORES.read(folder), rates)

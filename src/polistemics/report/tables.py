"""The score tables behind the report's figures, for one election (country) at a time.

Every builder takes scored cells (``scoring/cells.py``) and returns a plain DataFrame with
fractions in [0, 1], which the page shows in % and ``tables/*.csv`` exports as is.

- ``leaderboard`` (Fig. 2): per model, the EMI with its bootstrap CI and a score per rubric, the
  mean of the model's Rubric Scores over the environments in which the rubric is scored (each
  environment weighs the same, as in the Adherence Index and the EMI); rows by EMI.
- ``robustness`` (Fig. 3): Adherence Index per model x environment with bootstrap CIs;
  ``environment_columns`` orders Baseline first, then the rest by difficulty (mean Adherence
  Index across models, easiest first); ``active_dispersion``: SD of each model's Adherence
  Index across the environments other than Baseline.
- ``baseline_party_adherence`` (Fig. 16), party spread (Fig. 4, from ``analyses.party_spread``),
  leave-one-out deviations (Fig. 13), sub-question pass rates (Figs. 19-27), vague modes
  (Table 8) and ablation deltas (Figs. 36-38).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from polistemics.conditions import Environment, Variant
from polistemics.report.labels import RUBRIC_ORDER
from polistemics.scoring.analyses import (
    ablation_deltas,
    difficulty_of,
    dispersion_of,
    leave_one_out,
    loo_summary,
    party_spread,
    vague_mode_table,
)
from polistemics.scoring.bootstrap import DEFAULT_RESAMPLES, bootstrap_indices
from polistemics.scoring.errors import CellsError
from polistemics.scoring.indices import ScoreTables, adherence_indices, emi_scores, scores_by

BASELINE = Environment.BASELINE.value
FULL = Variant.FULL.value


@dataclass
class ElectionTables:
    """Every score table of one election (full variant unless the name says otherwise)."""

    election_id: str
    country: str | None
    models: list[str]  # ordered by EMI, highest first
    environments: list[str]  # Baseline first, then by difficulty
    leaderboard: pd.DataFrame
    robustness: pd.DataFrame
    dispersion: pd.DataFrame
    difficulty: pd.DataFrame
    rubric_scores: pd.DataFrame
    sub_question_rates: pd.DataFrame
    party_spread: pd.DataFrame
    party_spread_rubric: pd.DataFrame
    baseline_parties: pd.DataFrame
    loo: pd.DataFrame
    loo_summary: pd.DataFrame
    vague_modes: pd.DataFrame | None  # None: no Vague cells with a recorded mode
    ablations: pd.DataFrame  # ablation deltas of every ablation variant present
    variant_scores: pd.DataFrame  # EMI and Adherence Index per variant x model (ablations too)
    bootstrap: pd.DataFrame

    @property
    def label(self) -> str:
        """``NL (tk2025)``; the election id alone when the country code is one of ISO 3166's
        user-assigned codes (the fictional demo's ``XX``), which would read as a placeholder."""
        if self.country and not user_assigned_country(self.country):
            return f"{self.country} ({self.election_id})"
        return self.election_id


def user_assigned_country(code: str) -> bool:
    """AA, QM-QZ, XA-XZ and ZZ: ISO 3166-1 codes that name no country."""
    code = code.strip().upper()
    if len(code) != 2:
        return False
    return code in ("AA", "ZZ") or code[0] == "X" or (code[0] == "Q" and code[1] >= "M")


def country_of(cells: pd.DataFrame) -> str | None:
    countries = cells["country"].dropna().astype(str).unique()
    return str(countries[0]) if len(countries) == 1 and countries[0] else None


def rubric_means(rubric_scores: pd.DataFrame) -> pd.DataFrame:
    """Per variant x model x rubric: mean Rubric Score over the environments it is scored in."""
    return (
        rubric_scores.groupby(["variant", "model", "rubric"], sort=True)["score"]
        .agg(score="mean", n_environments="size")
        .reset_index()
    )


def leaderboard(tables: ScoreTables, cells: pd.DataFrame, bootstrap: pd.DataFrame) -> pd.DataFrame:
    """Fig. 2 for one variant's cells and their scores by model: EMI (+ CI) and per-rubric score
    per model, by EMI."""
    emi = tables.emi.loc[:, ["model", "emi", "n_environments"]]
    means = rubric_means(tables.rubrics).pivot(index="model", columns="rubric", values="score")
    board = emi.merge(means, left_on="model", right_index=True, how="left")
    for rubric in RUBRIC_ORDER:
        if rubric.value not in board.columns:
            board[rubric.value] = float("nan")
    ci = bootstrap[bootstrap["measure"] == "emi"].loc[:, ["model", "ci_low", "ci_high"]]
    board = board.merge(
        ci.rename(columns={"ci_low": "emi_ci_low", "ci_high": "emi_ci_high"}),
        on="model",
        how="left",
    )
    board["n_observations"] = board["model"].map(cells.groupby("model")["observation_id"].nunique())
    columns = [
        "model",
        "emi",
        "emi_ci_low",
        "emi_ci_high",
        *(r.value for r in RUBRIC_ORDER),
        "n_environments",
        "n_observations",
    ]
    return board.loc[:, columns].sort_values(
        ["emi", "model"], ascending=[False, True], ignore_index=True
    )


def environment_columns(difficulty: pd.DataFrame) -> list[str]:
    """Baseline first, then the other environments easiest first (Fig. 3's column order)."""
    ordered = [e for e in difficulty["environment"] if e != BASELINE]
    return ([BASELINE] if BASELINE in set(difficulty["environment"]) else []) + ordered


def robustness(adherence: pd.DataFrame, bootstrap: pd.DataFrame) -> pd.DataFrame:
    """Fig. 3: Adherence Index per model x environment (one variant's ``adherence_indices`` by
    model) with its bootstrap CI."""
    adherence = adherence.loc[:, ["model", "environment", "adherence"]]
    ci = bootstrap[bootstrap["measure"] == "adherence"].loc[
        :, ["model", "environment", "ci_low", "ci_high"]
    ]
    return adherence.merge(ci, on=["model", "environment"], how="left")


def active_dispersion(adherence: pd.DataFrame) -> pd.DataFrame:
    """Fig. 3's strip: population SD of the Adherence Index (one variant's ``adherence_indices``
    by model) across the non-Baseline environments."""
    active = adherence[adherence["environment"] != BASELINE]
    if active.empty:
        return pd.DataFrame(columns=["model", "dispersion", "n_environments"])
    return dispersion_of(active).loc[:, ["model", "dispersion", "n_environments"]]


def baseline_party_adherence(cells: pd.DataFrame) -> pd.DataFrame:
    """Fig. 16: Adherence Index per model x party under Baseline."""
    baseline = cells[cells["environment"] == BASELINE]
    if baseline.empty:
        return pd.DataFrame(columns=["model", "party_id", "party_name", "adherence"])
    table = adherence_indices(baseline, ("model", "party_id", "party_name"))
    return table.loc[:, ["model", "party_id", "party_name", "adherence"]]


def ablation_table(cells: pd.DataFrame) -> pd.DataFrame:
    """Deltas (ablation - full) per ablation variant x environment x party x sub-question."""
    full = cells[cells["variant"] == FULL]
    frames = []
    for variant in (Variant.ANONYMIZED.value, Variant.ENGLISH.value):
        ablation = cells[cells["variant"] == variant]
        if ablation.empty or full.empty:
            continue
        deltas = ablation_deltas(full, ablation)
        if not deltas.empty:
            frames.append(deltas.assign(ablation=variant))
    if not frames:
        return pd.DataFrame(
            columns=[
                "ablation",
                "environment",
                "party_id",
                "party_name",
                "rubric",
                "sub_question",
                "full_rate",
                "ablation_rate",
                "delta",
            ]
        )
    table = pd.concat(frames, ignore_index=True)
    return table.loc[:, ["ablation", *[c for c in table.columns if c != "ablation"]]]


def variant_scores(cells: pd.DataFrame, bootstrap: pd.DataFrame) -> pd.DataFrame:
    """EMI per variant x model over the environments each variant covers, with CIs."""
    emi = emi_scores(cells, ("model",))
    ci = bootstrap[bootstrap["measure"] == "emi"].loc[:, ["variant", "model", "ci_low", "ci_high"]]
    return emi.merge(ci, on=["variant", "model"], how="left")


def election_tables(
    cells: pd.DataFrame,
    election_id: str,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    loo_min_items: int | None = None,
) -> ElectionTables:
    """All tables for one election's cells (every variant present); ``loo_min_items``: the
    optional minimum-items gate of the leave-one-out flags (off, as in the paper)."""
    everything = cells[cells["election_id"] == election_id]
    if everything.empty:
        raise CellsError(f"no scored cells for election '{election_id}'", field="election_id")
    boot = bootstrap_indices(everything, n_resamples=resamples, seed=seed)
    full = everything[everything["variant"] == FULL]
    full_boot = boot[boot["variant"] == FULL]
    if full.empty:  # a study of ablations only: show them as they are
        full = everything[everything["variant"] == everything["variant"].iloc[0]]
        full_boot = boot[boot["variant"] == full["variant"].iloc[0]]
    tables = scores_by(full, ("model",))
    board = leaderboard(tables, full, full_boot)
    difficulty = difficulty_of(tables.adherence).loc[
        :, ["environment", "mean_adherence", "n_models"]
    ]
    loo = leave_one_out(full, min_items=loo_min_items)
    try:
        vague = vague_mode_table(full)
    except CellsError:
        vague = None
    return ElectionTables(
        election_id=election_id,
        country=country_of(everything),
        models=list(board["model"]),
        environments=environment_columns(difficulty),
        leaderboard=board,
        robustness=robustness(tables.adherence, full_boot),
        dispersion=active_dispersion(tables.adherence),
        difficulty=difficulty,
        rubric_scores=tables.rubrics.drop(columns=["variant"]),
        sub_question_rates=tables.sub_questions.drop(columns=["variant"]),
        party_spread=party_spread(full).drop(columns=["variant"]),
        party_spread_rubric=party_spread(full, by_rubric=True).drop(columns=["variant"]),
        baseline_parties=baseline_party_adherence(full),
        loo=loo.drop(columns=["variant"]),
        loo_summary=loo_summary(loo).drop(columns=["variant"]),
        vague_modes=vague,
        ablations=ablation_table(everything),
        variant_scores=variant_scores(everything, boot),
        bootstrap=boot,
    )

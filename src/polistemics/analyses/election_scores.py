"""The score tables of each election (paper Figs. 2-4, 13, 16, 19-27, 36-38, Table 8), with
their bootstrap CIs: the report's leaderboard, robustness, party, leave-one-out, sub-question,
vague-mode and ablation sections draw these tables.

Every table is long, one file for all elections with ``election_id`` first; fractions in
[0, 1]. Per election (``election_scores``), from its cells (the headline variant unless the
name says otherwise, ``elections.election_cells``):

- ``leaderboard`` (Fig. 2): per model, the EMI with its bootstrap CI and a score per rubric, the
  mean of the model's Rubric Scores over the environments in which the rubric is scored (each
  environment weighs the same, as in the Adherence Index and the EMI); rows by EMI.
- ``adherence_by_environment`` (Fig. 3): Adherence Index per model x environment with bootstrap
  CIs; ``dispersion``: each model's rubric-level dispersion (Fig. 3's strip,
  ``scoring.analyses.rubric_dispersion_of``) with its bootstrap CI over the EMI's resamples
  (``scoring.bootstrap.bootstrap_dispersion_of_totals``) and the SD of its Adherence Index;
  ``environment_difficulty``: mean Adherence Index across models.
- ``baseline_party_adherence`` (Fig. 16), party spread (Fig. 4, ``scoring.analyses``),
  leave-one-out deviations (Fig. 13), Rubric Scores and sub-question pass rates (Figs. 19-27),
  vague modes (Table 8), ablation deltas (Figs. 36-38), EMI per variant and every bootstrap CI.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import pandas as pd

from polistemics.analyses.columns import (
    BOOTSTRAP_CI,
    ELECTION,
    ENVIRONMENT,
    MODEL,
    PARTY,
    PARTY_NAME,
    RUBRIC,
    SUB_QUESTION,
    VARIANT,
)
from polistemics.analyses.elections import elections_in, joined
from polistemics.analyses.schema import TableColumn, TableSchema
from polistemics.conditions import Environment, Variant
from polistemics.rubrics import Rubric
from polistemics.scoring.analyses import (
    ablation_deltas,
    adherence_sd_of,
    difficulty_of,
    leave_one_out,
    loo_summary,
    party_spread,
    rubric_dispersion_of,
    vague_mode_table,
)
from polistemics.scoring.bootstrap import (
    DEFAULT_RESAMPLES,
    bootstrap_dispersion_of_totals,
    bootstrap_of_totals,
    observation_totals,
)
from polistemics.scoring.cells import grouped, plain, rows_where
from polistemics.scoring.errors import CellsError
from polistemics.scoring.indices import (
    ScoreTables,
    adherence_indices,
    emi_scores,
    is_composition,
    scores_by,
)

BASELINE = Environment.BASELINE.value
FULL = Variant.FULL.value
# the leaderboard's rubric columns, in the paper's order
LEADERBOARD_RUBRICS: tuple[Rubric, ...] = (
    Rubric.FAITHFULNESS,
    Rubric.IMPARTIALITY,
    Rubric.EPISTEMIC_CALIBRATION,
)


def _text(name: str, meaning: str) -> TableColumn:
    return TableColumn(name, "text", meaning)


def _float(name: str, meaning: str) -> TableColumn:
    return TableColumn(name, "float", meaning)


def _int(name: str, meaning: str) -> TableColumn:
    return TableColumn(name, "int", meaning)


def _spread_columns(*keys: TableColumn) -> tuple[TableColumn, ...]:
    return (
        ELECTION,
        MODEL,
        ENVIRONMENT,
        *keys,
        _float("spread", "highest minus lowest party score"),
        _text("max_party_id", "the party with the highest score"),
        TableColumn("max_party_name", "text", "its name; empty: none", True),
        _float("max_score", "the highest party score"),
        _text("min_party_id", "the party with the lowest score"),
        TableColumn("min_party_name", "text", "its name; empty: none", True),
        _float("min_score", "the lowest party score"),
        _int("n_parties", "parties scored"),
        TableColumn("flagged", "bool", "spread above the paper's threshold"),
    )


LEADERBOARD = TableSchema(
    "leaderboard",
    "Fig. 2: per model, the EMI with its bootstrap CI and the mean Rubric Score per rubric "
    "over the environments it is scored in; rows by EMI, highest first",
    (
        ELECTION,
        MODEL,
        _float("emi", "Epistemic Merit Index"),
        _float("emi_ci_low", "bootstrap 95% CI of the EMI, lower bound"),
        _float("emi_ci_high", "bootstrap 95% CI of the EMI, upper bound"),
        *(
            _float(r.value, f"mean {r.value} Rubric Score over its environments; NaN: unscored")
            for r in LEADERBOARD_RUBRICS
        ),
        _int("n_environments", "environments in the EMI"),
        _int("n_observations", "observations answered"),
    ),
)
ADHERENCE_BY_ENVIRONMENT = TableSchema(
    "adherence_by_environment",
    "Fig. 3: Adherence Index per model x environment with its bootstrap CI",
    (ELECTION, MODEL, ENVIRONMENT, _float("adherence", "Adherence Index"), *BOOTSTRAP_CI),
)
DISPERSION = TableSchema(
    "dispersion",
    "Fig. 3's strip: each model's rubric-level dispersion across the environments other than "
    "Baseline (Sec. 7.2), and the SD of its Adherence Index there",
    (
        ELECTION,
        MODEL,
        _float(
            "dispersion",
            "rubric-level dispersion (the paper's, Fig. 3's strip): mean over the rubrics of the "
            "sample SD (ddof 1) of the Rubric Score across the non-Baseline environments where "
            "the rubric is scored",
        ),
        _int("n_rubrics", "rubrics with an SD in the mean"),
        _float(
            "adherence_sd",
            "population SD (ddof 0) of the Adherence Index across the non-Baseline environments "
            "(not the paper's dispersion)",
        ),
        _int("n_environments", "environments in adherence_sd"),
        _float(
            "dispersion_ci_low",
            "bootstrap 95% CI of the dispersion, lower bound (observations resampled, the EMI's "
            "resamples)",
        ),
        _float("dispersion_ci_high", "bootstrap 95% CI of the dispersion, upper bound"),
        _int("n_observations", "observations resampled for the CI"),
    ),
)
ENVIRONMENT_DIFFICULTY = TableSchema(
    "environment_difficulty",
    "Mean Adherence Index across models per environment, easiest first (Fig. 3's order)",
    (
        ELECTION,
        ENVIRONMENT,
        _float("mean_adherence", "mean Adherence Index across models"),
        _int("n_models", "models"),
    ),
)
RUBRIC_SCORES = TableSchema(
    "rubric_scores",
    "Rubric Score per model x environment x rubric",
    (
        ELECTION,
        MODEL,
        ENVIRONMENT,
        RUBRIC,
        _int("n", "scored cells"),
        _int("passes", "passing cells"),
        _float("score", "Rubric Score"),
    ),
)
SUB_QUESTION_PASS_RATES = TableSchema(
    "sub_question_pass_rates",
    "Figs. 19-27: pass rate per model x environment x sub-question",
    (
        ELECTION,
        MODEL,
        ENVIRONMENT,
        RUBRIC,
        SUB_QUESTION,
        _int("n", "scored cells"),
        _int("passes", "passing cells"),
        _float("pass_rate", "passes / n"),
    ),
)
PARTY_SPREAD = TableSchema(
    "party_spread",
    "Fig. 4: spread of the party Adherence Index per model x environment",
    _spread_columns(),
)
PARTY_SPREAD_BY_RUBRIC = TableSchema(
    "party_spread_by_rubric",
    "Fig. 4's markers: spread of the party Rubric Score per model x environment x rubric",
    _spread_columns(RUBRIC),
)
BASELINE_PARTY_ADHERENCE = TableSchema(
    "baseline_party_adherence",
    "Fig. 16: Adherence Index per model x party under Baseline",
    (ELECTION, MODEL, PARTY, PARTY_NAME, _float("adherence", "Adherence Index")),
)
LOO_DEVIATIONS = TableSchema(
    "loo_deviations",
    "Fig. 13: each party's pass rate against the mean of the other parties (leave one out), "
    "per model x environment x sub-question",
    (
        ELECTION,
        MODEL,
        ENVIRONMENT,
        RUBRIC,
        SUB_QUESTION,
        PARTY,
        PARTY_NAME,
        _int("n_items", "the party's scored cells"),
        _float("pass_rate", "the party's pass rate"),
        _float("others_mean", "mean pass rate of the other parties"),
        _float("deviation", "pass_rate - others_mean"),
        TableColumn("flagged", "bool", "deviation beyond the paper's threshold"),
    ),
)
LOO_SUMMARY = TableSchema(
    "loo_summary",
    "Leave-one-out deviations per party x sub-question, over models and environments",
    (
        ELECTION,
        PARTY,
        PARTY_NAME,
        RUBRIC,
        SUB_QUESTION,
        _float("mean_deviation", "mean deviation"),
        _int("n_contexts", "model x environment contexts"),
        _int("flagged_below", "contexts flagged below the others"),
        _int("flagged_above", "contexts flagged above the others"),
    ),
)
VAGUE_MODES = TableSchema(
    "vague_modes",
    "Table 8: pooled pass rate in Vague per vagueness mode",
    (
        ELECTION,
        VARIANT,
        _int("vague_mode", "the vagueness mode"),
        _float("pass_rate", "pass rate over every sub-question, rubric and model"),
        _int("n_cells", "scored cells"),
        _int("n_observations", "observations"),
    ),
)
ABLATION_DELTAS = TableSchema(
    "ablation_deltas",
    "Figs. 36-38: pass-rate deltas (ablation - full) per ablation x environment x party x "
    "sub-question",
    (
        ELECTION,
        _text("ablation", "the ablation variant (Variant value)"),
        ENVIRONMENT,
        PARTY,
        RUBRIC,
        SUB_QUESTION,
        PARTY_NAME,
        _int("n_full", "full-variant cells"),
        _int("n_ablation", "ablation cells"),
        _float("full_rate", "full-variant pass rate"),
        _float("ablation_rate", "ablation pass rate"),
        _float("delta", "ablation_rate - full_rate"),
    ),
)
VARIANT_SCORES = TableSchema(
    "variant_scores",
    "EMI per variant x model over the environments each variant covers, with bootstrap CIs",
    (
        ELECTION,
        VARIANT,
        MODEL,
        _float("emi", "Epistemic Merit Index"),
        _int("n_environments", "environments in the EMI"),
        *BOOTSTRAP_CI,
    ),
)
BOOTSTRAP = TableSchema(
    "bootstrap",
    "Every bootstrap CI (observations resampled): per variant x model, the EMI and the "
    "Adherence Index per environment",
    (
        ELECTION,
        VARIANT,
        MODEL,
        _text("measure", "emi or adherence"),
        TableColumn("environment", "text", "the environment; empty for the EMI", True),
        _float("estimate", "the full-data estimate"),
        *BOOTSTRAP_CI,
        _int("n_resamples", "bootstrap resamples"),
        _int("n_observations", "observations resampled"),
    ),
)


@dataclass
class ElectionScores:
    """Every score table of one election, without its ``election_id`` column; each field is
    named as its table in ``ELECTION_SCHEMAS``."""

    leaderboard: pd.DataFrame
    adherence_by_environment: pd.DataFrame
    dispersion: pd.DataFrame
    environment_difficulty: pd.DataFrame
    rubric_scores: pd.DataFrame
    sub_question_pass_rates: pd.DataFrame
    party_spread: pd.DataFrame
    party_spread_by_rubric: pd.DataFrame
    baseline_party_adherence: pd.DataFrame
    loo_deviations: pd.DataFrame
    loo_summary: pd.DataFrame
    vague_modes: pd.DataFrame | None  # None: no Vague cells with a recorded mode
    ablation_deltas: pd.DataFrame  # ablation deltas of every ablation variant present
    variant_scores: pd.DataFrame  # EMI per variant x model (ablations too)
    bootstrap: pd.DataFrame


ELECTION_SCHEMAS: dict[str, TableSchema] = {
    schema.name: schema
    for schema in (
        LEADERBOARD,
        ADHERENCE_BY_ENVIRONMENT,
        DISPERSION,
        ENVIRONMENT_DIFFICULTY,
        RUBRIC_SCORES,
        SUB_QUESTION_PASS_RATES,
        PARTY_SPREAD,
        PARTY_SPREAD_BY_RUBRIC,
        BASELINE_PARTY_ADHERENCE,
        LOO_DEVIATIONS,
        LOO_SUMMARY,
        VAGUE_MODES,
        ABLATION_DELTAS,
        VARIANT_SCORES,
        BOOTSTRAP,
    )
}


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
    for rubric in LEADERBOARD_RUBRICS:
        if rubric.value not in board.columns:
            board[rubric.value] = float("nan")
    ci = bootstrap[bootstrap["measure"] == "emi"].loc[:, ["model", "ci_low", "ci_high"]]
    board = board.merge(
        ci.rename(columns={"ci_low": "emi_ci_low", "ci_high": "emi_ci_high"}),
        on="model",
        how="left",
    )
    observations = grouped(cells, "model")["observation_id"].nunique()
    board["n_observations"] = board["model"].map(
        plain(observations.reset_index()).set_index("model")["observation_id"]
    )
    columns = [
        "model",
        "emi",
        "emi_ci_low",
        "emi_ci_high",
        *(r.value for r in LEADERBOARD_RUBRICS),
        "n_environments",
        "n_observations",
    ]
    return board.loc[:, columns].sort_values(
        ["emi", "model"], ascending=[False, True], ignore_index=True
    )


def robustness(adherence: pd.DataFrame, bootstrap: pd.DataFrame) -> pd.DataFrame:
    """Fig. 3: Adherence Index per model x environment (one variant's ``adherence_indices`` by
    model) with its bootstrap CI."""
    adherence = adherence.loc[:, ["model", "environment", "adherence"]]
    ci = bootstrap[bootstrap["measure"] == "adherence"].loc[
        :, ["model", "environment", "ci_low", "ci_high"]
    ]
    return adherence.merge(ci, on=["model", "environment"], how="left")


def active_dispersion(tables: ScoreTables, intervals: pd.DataFrame | None = None) -> pd.DataFrame:
    """Fig. 3's strip from one variant's scores by model: the rubric-level dispersion across the
    non-Baseline environments, and the population SD of the Adherence Index there; with
    ``intervals`` (``scoring.bootstrap.bootstrap_dispersion_of_totals`` of the same variant),
    the dispersion's bootstrap CI and the observations resampled."""
    columns = ["model", "dispersion", "n_rubrics", "adherence_sd", "n_environments"]
    if intervals is not None:
        columns += ["dispersion_ci_low", "dispersion_ci_high", "n_observations"]
    # Over the paper's environments only: compositions (issue 30) stand beside them.
    environments = tables.adherence["environment"]
    adherence = tables.adherence[(environments != BASELINE) & ~is_composition(environments)]
    if adherence.empty:
        return pd.DataFrame(columns=columns)
    rubric_level = rubric_dispersion_of(tables.rubrics)
    table = rubric_level.merge(adherence_sd_of(adherence), on=["variant", "model"], how="outer")
    if intervals is not None:
        found = intervals.loc[:, ["variant", "model", "ci_low", "ci_high", "n_observations"]]
        table = table.merge(
            found.rename(columns={"ci_low": "dispersion_ci_low", "ci_high": "dispersion_ci_high"}),
            on=["variant", "model"],
            how="left",
        )
    return table[columns]


def baseline_party_adherence(cells: pd.DataFrame) -> pd.DataFrame:
    """Fig. 16: Adherence Index per model x party under Baseline."""
    baseline = cells[cells["environment"] == BASELINE]
    if baseline.empty:
        return pd.DataFrame(columns=["model", "party_id", "party_name", "adherence"])
    table = adherence_indices(baseline, ("model", "party_id", "party_name"))
    return table.loc[:, ["model", "party_id", "party_name", "adherence"]]


def ablation_table(cells: pd.DataFrame) -> pd.DataFrame:
    """Deltas (ablation - full) per ablation variant x environment x party x sub-question."""
    full = rows_where(cells, cells["variant"] == FULL)  # a study of one variant: no copy
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


def election_scores(
    cells: pd.DataFrame,
    election_id: str,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    loo_min_items: int | None = None,
) -> ElectionScores:
    """All score tables for one election's cells (every variant present); ``loo_min_items``: the
    optional minimum-items gate of the leave-one-out flags (off, as in the paper)."""
    everything = rows_where(cells, cells["election_id"] == election_id)
    if everything.empty:
        raise CellsError(f"no scored cells for election '{election_id}'", field="election_id")
    totals = observation_totals(everything)
    boot = bootstrap_of_totals(totals, n_resamples=resamples, seed=seed)
    full = rows_where(everything, everything["variant"] == FULL)  # one variant: no copy
    full_boot = boot[boot["variant"] == FULL]
    if full.empty:  # a study of ablations only: show them as they are
        full = everything[everything["variant"] == everything["variant"].iloc[0]]
        full_boot = boot[boot["variant"] == full["variant"].iloc[0]]
    tables = scores_by(full, ("model",))
    spread = bootstrap_dispersion_of_totals(
        totals[totals["variant"] == full["variant"].iloc[0]], n_resamples=resamples, seed=seed
    )
    loo = leave_one_out(full, min_items=loo_min_items)
    try:
        vague = vague_mode_table(full)
    except CellsError:
        vague = None
    return ElectionScores(
        leaderboard=leaderboard(tables, full, full_boot),
        adherence_by_environment=robustness(tables.adherence, full_boot),
        dispersion=active_dispersion(tables, spread),
        environment_difficulty=difficulty_of(tables.adherence).loc[
            :, ["environment", "mean_adherence", "n_models"]
        ],
        rubric_scores=tables.rubrics.drop(columns=["variant"]),
        sub_question_pass_rates=tables.sub_questions.drop(columns=["variant"]),
        party_spread=party_spread(full).drop(columns=["variant"]),
        party_spread_by_rubric=party_spread(full, by_rubric=True).drop(columns=["variant"]),
        baseline_party_adherence=baseline_party_adherence(full),
        loo_deviations=loo.drop(columns=["variant"]),
        loo_summary=loo_summary(loo).drop(columns=["variant"]),
        vague_modes=vague,
        ablation_deltas=ablation_table(everything),
        variant_scores=variant_scores(everything, boot),
        bootstrap=boot,
    )


def election_score_tables(
    cells: pd.DataFrame,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    loo_min_items: int | None = None,
) -> dict[str, pd.DataFrame]:
    """Every election's ``ElectionScores``, one table per name with ``election_id`` first (an
    election whose table is empty or None has no rows in it)."""
    found: dict[str, list[pd.DataFrame]] = {name: [] for name in ELECTION_SCHEMAS}
    for election_id in elections_in(cells):
        scores = election_scores(
            cells, election_id, resamples=resamples, seed=seed, loo_min_items=loo_min_items
        )
        for field in fields(scores):
            table = getattr(scores, field.name)
            if table is not None and not table.empty:
                found[field.name].append(table.assign(election_id=election_id))
    return {name: joined(frames, ELECTION_SCHEMAS[name]) for name, frames in found.items()}

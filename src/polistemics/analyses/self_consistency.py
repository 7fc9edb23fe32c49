"""Self-consistency at temperature > 0 (issue 30, item 3; docs/pushback.md, "Self-consistency"):
with ``samples > 1`` every target answers every item several times; how far do the samples
agree? Per election x model x environment x variant:

- ``self_consistency_verdicts``: the panel's majority verdicts (the scored cells) of one
  observation's samples, the samples taken as raters of each (observation, sub-question): the
  percent agreement, Fleiss' kappa and Gwet's AC1 (``stats.uneven_agreement``), and the share of
  observations whose majority verdict flips between samples (on at least one sub-question) with
  its Wilson 95% interval;
- ``self_consistency_stances``: the coder panel's majority stance of each sample's answer: the
  share of observations whose samples are all coded alike, with its Wilson interval, and the
  mean share of agreeing sample pairs.

The agreement coefficients and the mean pairwise stance agreement have 95% percentile intervals
from the project's bootstrap engine, resampling observations (an observation's sub-questions are
rated by the same samples, so they are not independent; ``stats.agreement_intervals``), seeded
per table x election x model x environment x variant from the run's bootstrap seed.

Only observations with at least two samples (two coded samples) count. Both tables are None
(no file) when no answer has a second sample: a study with ``samples = 1`` is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from polistemics.analyses.columns import ELECTION, ENVIRONMENT, MODEL, VARIANT, WILSON_CI
from polistemics.analyses.schema import TableColumn, TableSchema
from polistemics.coding.records import majority_codes
from polistemics.runlog import EnvironmentItem, StanceCodeRecord
from polistemics.scoring.cells import plain
from polistemics.stats import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    agreement_intervals,
    observation_matrix,
    percentile_ci,
    resample_weights,
    stratum_rng,
    uneven_agreement,
    wilson_intervals,
)

KEYS = ["election_id", "model", "environment", "variant"]


def _bootstrap_ci(name: str, what: str) -> tuple[TableColumn, TableColumn]:
    return (
        TableColumn(
            f"{name}_ci_low",
            "float",
            f"95% CI of {what}, bootstrap over observations (percentile), lower bound",
        ),
        TableColumn(f"{name}_ci_high", "float", "its upper bound"),
    )


N_RESAMPLES = TableColumn("n_resamples", "int", "bootstrap resamples of the agreement intervals")
SELF_CONSISTENCY_VERDICTS = TableSchema(
    "self_consistency_verdicts",
    "Agreement of the majority verdicts across samples, and the share of observations whose "
    "majority verdict flips between samples, per election x model x environment x variant",
    (
        ELECTION,
        MODEL,
        ENVIRONMENT,
        VARIANT,
        TableColumn("n_observations", "int", "observations with two or more samples"),
        TableColumn("n_cells", "int", "their (observation, sub-question) cells"),
        TableColumn("samples", "int", "the most samples of one observation"),
        TableColumn("percent_agreement", "float", "mean share of agreeing sample pairs"),
        TableColumn("fleiss_kappa", "float", "Fleiss' kappa, samples as raters"),
        TableColumn("gwet_ac1", "float", "Gwet's AC1, samples as raters"),
        TableColumn("flipped", "int", "observations with a sub-question whose verdict differs"),
        TableColumn("flip_rate", "float", "flipped / n_observations"),
        *WILSON_CI,
        *_bootstrap_ci("percent_agreement", "the percent agreement"),
        *_bootstrap_ci("fleiss_kappa", "Fleiss' kappa (NaN resamples: one category, left out)"),
        *_bootstrap_ci("gwet_ac1", "Gwet's AC1"),
        N_RESAMPLES,
    ),
    optional=True,
)
SELF_CONSISTENCY_STANCES = TableSchema(
    "self_consistency_stances",
    "Agreement of the coded stances across samples per election x model x environment x variant",
    (
        ELECTION,
        MODEL,
        ENVIRONMENT,
        VARIANT,
        TableColumn("n_observations", "int", "observations with two or more coded samples"),
        TableColumn("all_agree", "int", "observations whose samples are all coded alike"),
        TableColumn("agreement_rate", "float", "all_agree / n_observations"),
        *WILSON_CI,
        TableColumn("pairwise_agreement", "float", "mean share of agreeing sample pairs"),
        *_bootstrap_ci("pairwise_agreement", "the mean pairwise agreement"),
        N_RESAMPLES,
    ),
    optional=True,
)
SELF_CONSISTENCY_SCHEMAS = {
    s.name: s for s in (SELF_CONSISTENCY_VERDICTS, SELF_CONSISTENCY_STANCES)
}


def _with_interval(table: pd.DataFrame, successes: str, n: str, rate: str) -> pd.DataFrame:
    table[rate] = table[successes] / table[n]
    table["ci_low"], table["ci_high"] = wilson_intervals(
        table[successes].to_numpy(), table[n].to_numpy()
    )
    return table


def _sampled_cells(cells: pd.DataFrame) -> pd.DataFrame:
    """Per (observation, sub-question) cell with two or more scored samples: the samples
    saying Yes (pass), the samples, and whether they differ (``flips``)."""
    scored = cells[cells["passed"].notna()]
    cell_keys = [*KEYS, "observation_id", "rubric", "sub_question"]
    # observed=True and plain: a compact frame (``scoring.cells.compact_cells``, as the finish
    # scores it) gives the groups and text keys its text columns give
    per_cell = plain(
        scored.assign(passed=scored["passed"].astype(bool))
        .groupby(cell_keys, sort=True, observed=True)["passed"]
        .agg(n_yes="sum", n_raters="size")
        .reset_index()
    )
    per_cell = per_cell[per_cell["n_raters"] >= 2]
    per_cell["flips"] = (per_cell["n_yes"] > 0) & (per_cell["n_yes"] < per_cell["n_raters"])
    return per_cell


def flipped_observations(cells: pd.DataFrame) -> pd.DataFrame:
    """Per ``KEYS`` x observation with two or more samples: ``flipped``, whether its majority
    verdict differs between samples on at least one sub-question."""
    per_cell = _sampled_cells(cells)
    return (
        per_cell.groupby([*KEYS, "observation_id"], sort=True)["flips"]
        .any()
        .rename("flipped")
        .reset_index()
    )


def verdict_consistency(
    cells: pd.DataFrame, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> pd.DataFrame:
    per_cell = _sampled_cells(cells)
    if per_cell.empty:
        return SELF_CONSISTENCY_VERDICTS.empty()
    rows = []
    for key, group in per_cell.groupby(KEYS, sort=True):
        n_yes, n_raters = group["n_yes"].to_numpy(), group["n_raters"].to_numpy()
        stats = uneven_agreement(n_yes, n_raters)
        rng = stratum_rng(seed, SELF_CONSISTENCY_VERDICTS.name, *map(str, key))
        ci = agreement_intervals(
            n_yes, n_raters, group["observation_id"].to_numpy(), rng, resamples
        )
        flipped = group.groupby("observation_id")["flips"].any()
        rows.append(
            {
                **dict(zip(KEYS, key, strict=True)),
                "n_observations": int(flipped.size),
                "n_cells": int(len(group)),
                "samples": int(group["n_raters"].max()),
                "percent_agreement": stats.percent_agreement,
                "fleiss_kappa": stats.fleiss_kappa,
                "gwet_ac1": stats.gwet_ac1,
                "flipped": int(flipped.sum()),
                **_bounds("percent_agreement", ci.percent_agreement),
                **_bounds("fleiss_kappa", ci.fleiss_kappa),
                **_bounds("gwet_ac1", ci.gwet_ac1),
                "n_resamples": resamples,
            }
        )
    table = _with_interval(pd.DataFrame(rows), "flipped", "n_observations", "flip_rate")
    return table.loc[:, SELF_CONSISTENCY_VERDICTS.names]


def _bounds(name: str, bounds: tuple[float, float]) -> dict[str, float]:
    return {f"{name}_ci_low": bounds[0], f"{name}_ci_high": bounds[1]}


def _mean_interval(groups: pd.DataFrame, value: str, seed: int, resamples: int) -> pd.DataFrame:
    """Per ``KEYS`` group of observation rows, the bootstrap interval of the mean of ``value``
    (one row per observation: the observation is the resampling unit)."""
    rows = []
    for key, group in groups.groupby(KEYS, sort=True):
        n_obs = len(group)
        zeros = np.zeros(n_obs, dtype="int64")
        sums = observation_matrix(np.arange(n_obs), zeros, group[value].to_numpy(), n_obs, 1)
        rng = stratum_rng(seed, SELF_CONSISTENCY_STANCES.name, *map(str, key))
        weights = resample_weights(rng, n_obs, resamples)[1:]
        low, high = percentile_ci((weights @ sums) / n_obs, DEFAULT_CONFIDENCE)
        rows.append({**dict(zip(KEYS, key, strict=True)), **_bounds(value, (low[0], high[0]))})
    return pd.DataFrame(rows)


def stance_observations(
    items: Sequence[EnvironmentItem], records: Sequence[StanceCodeRecord]
) -> pd.DataFrame:
    """Per ``KEYS`` x observation with two or more coded samples: ``all_agree`` (every sample
    coded alike) and ``pairwise_agreement`` (the share of agreeing sample pairs)."""
    by_key = {item.key: item for item in items}
    stances: dict[tuple, list[str]] = {}
    for code in majority_codes(records):
        item = by_key.get(code.subject_key)
        if code.kind != "answer" or item is None or code.stance is None:
            continue
        key = (item.election_id, code.model, item.environment.value, item.variant.value)
        stances.setdefault((*key, item.observation_id), []).append(code.stance.value)
    rows = []
    for (*key, observation), coded in stances.items():
        if len(coded) < 2:
            continue
        pairs = list(combinations(coded, 2))
        rows.append(
            {
                **dict(zip(KEYS, key, strict=True)),
                "observation_id": observation,
                "all_agree": len(set(coded)) == 1,
                "pairwise_agreement": float(np.mean([a == b for a, b in pairs])),
            }
        )
    columns = [*KEYS, "observation_id", "all_agree", "pairwise_agreement"]
    return pd.DataFrame(rows, columns=columns)


def stance_consistency(
    items: Sequence[EnvironmentItem],
    records: Sequence[StanceCodeRecord],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> pd.DataFrame:
    observations = stance_observations(items, records)
    if observations.empty:
        return SELF_CONSISTENCY_STANCES.empty()
    table = (
        observations.groupby(KEYS, sort=True)
        .agg(
            n_observations=("all_agree", "size"),
            all_agree=("all_agree", "sum"),
            pairwise_agreement=("pairwise_agreement", "mean"),
        )
        .reset_index()
        .merge(_mean_interval(observations, "pairwise_agreement", seed, resamples), on=KEYS)
    )
    table["all_agree"] = table["all_agree"].astype("int64")
    table["n_resamples"] = resamples
    table = _with_interval(table, "all_agree", "n_observations", "agreement_rate")
    return table.loc[:, SELF_CONSISTENCY_STANCES.names]


def self_consistency_tables(
    cells: pd.DataFrame,
    items: Sequence[EnvironmentItem],
    stance_codes: Sequence[StanceCodeRecord] | None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> dict[str, pd.DataFrame | None]:
    """Both tables; None when no answer has a second sample (the stances table also None
    without stance codes). ``resamples`` and ``seed``: the agreement intervals' bootstrap."""
    sampled = not cells.empty and "sample_index" in cells and (cells["sample_index"] > 0).any()
    if not sampled:
        return dict.fromkeys(SELF_CONSISTENCY_SCHEMAS)
    return {
        "self_consistency_verdicts": verdict_consistency(cells, resamples=resamples, seed=seed),
        "self_consistency_stances": None
        if stance_codes is None
        else stance_consistency(items, stance_codes, resamples=resamples, seed=seed),
    }

"""Percentile bootstrap CIs for the EMI and the Adherence Indices.

Resampling unit: the observation (observation id), drawn with replacement within each model
(and variant), so all of an observation's answers, environments, rubrics and samples move
together. Each resample recomputes the pooled Rubric Scores, the Adherence Indices (mean over
the rubrics scored in the environment) and the EMI exactly as ``indices`` does. The work is
one matrix product per model: resample counts (B x observations) times per-observation pass
and cell counts (observations x environment-rubric), made from the per-observation totals
(``observation_totals``), not from the cells themselves. Each model's generator is seeded from
``seed`` and its own name, so its interval does not depend on which other models are scored.
The resampling and the percentiles are ``stats.bootstrap``'s; this module says what is
resampled (the scoreable cells of one variant x model) and what is computed from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from polistemics.conditions import COMPOSITION_SEPARATOR, Environment
from polistemics.scoring.cells import grouped, plain, scoreable_cells, size_and_sum
from polistemics.scoring.indices import is_composition
from polistemics.stats.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    check_bootstrap_settings,
    observation_matrix,
    percentile_ci,
    resampled_totals,
    sorted_codes,
    stratum_rng,
)

__all__ = [
    "DEFAULT_RESAMPLES",
    "bootstrap_dispersion_of_totals",
    "bootstrap_indices",
    "bootstrap_of_totals",
    "observation_totals",
]


OBSERVATION_KEYS = ["variant", "model", "environment", "rubric", "observation_id"]


@dataclass(frozen=True)
class _ModelMatrix:
    passes: np.ndarray  # observations x (environment, rubric) columns
    counts: np.ndarray
    env_of_column: np.ndarray  # environment index per column
    environments: list[str]


def observation_totals(cells: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """The bootstrap's input: per variant x model x environment x rubric x observation, the
    scoreable cells (``n``) and how many passed, sorted by those keys. Resampling needs no more
    than these per-observation aggregates (an observation's cells always move together).
    ``by``: columns that lead the keys (``party_id``: each party's totals, one grouping)."""
    kept, _ = scoreable_cells(cells)
    keys = [*by, *OBSERVATION_KEYS]
    if kept.empty:
        return pd.DataFrame(columns=[*keys, "n", "passes"])
    table = size_and_sum(kept, keys, "passed")
    if table is not None:
        return table
    table = grouped(kept, keys, sort=True)["passed"].agg(n="size", passes="sum")
    return plain(table.reset_index()).astype({"n": "int64", "passes": "int64"})


def _model_matrix(totals: pd.DataFrame) -> _ModelMatrix:
    """One model's observations x (environment, rubric) pass and cell totals: observations in
    sorted order, columns sorted by environment, then rubric."""
    obs_codes, observations = sorted_codes(totals["observation_id"])
    columns = pd.MultiIndex.from_frame(totals[["environment", "rubric"]])
    col_codes, column_keys = sorted_codes(columns)
    column_envs = [env for env, _ in column_keys]
    environments = sorted(set(column_envs))
    env_of_column = np.array([environments.index(env) for env in column_envs])
    shape = (len(observations), len(column_keys))
    passes = observation_matrix(obs_codes, col_codes, totals["passes"].to_numpy(), *shape)
    counts = observation_matrix(obs_codes, col_codes, totals["n"].to_numpy(), *shape)
    return _ModelMatrix(passes, counts, env_of_column, environments)


def _indices(
    passes: np.ndarray,
    counts: np.ndarray,
    env_of_column: np.ndarray,
    n_env: int,
    in_emi: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Rows of (pass, count) totals -> (adherence rows x environments, EMI per row); the EMI
    over the environments ``in_emi`` marks (default all; never a composition, issue 30)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = passes / counts  # NaN where a resample has no cells of that rubric
        adherence = np.empty((passes.shape[0], n_env))
        for env in range(n_env):
            block = scores[:, env_of_column == env]
            present = ~np.isnan(block)
            adherence[:, env] = np.where(
                present.any(axis=1), np.nansum(block, axis=1) / present.sum(axis=1), np.nan
            )
        logs = np.log(adherence if in_emi is None else adherence[:, in_emi])
        emi = np.exp(np.nanmean(logs, axis=1))
    return adherence, emi


def bootstrap_indices(
    cells: pd.DataFrame,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> pd.DataFrame:
    """One row per variant x model x measure: the EMI (environment None) and the Adherence
    Index per environment, with the full-data estimate and the percentile CI."""
    check_bootstrap_settings(n_resamples, confidence)
    return bootstrap_of_totals(observation_totals(cells), n_resamples, seed, confidence)


def bootstrap_of_totals(
    totals: pd.DataFrame,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> pd.DataFrame:
    """``bootstrap_indices`` from the per-observation totals (``observation_totals``)."""
    check_bootstrap_settings(n_resamples, confidence)
    rows = []
    for (variant, model), group in totals.groupby(["variant", "model"], sort=True):
        matrix = _model_matrix(group)
        n_obs, n_env = matrix.passes.shape[0], len(matrix.environments)
        # One name "variant/model" (not two names): the generator the intervals always used.
        rng = stratum_rng(seed, f"{variant}/{model}")
        # row 0: the full data
        passes, counts = resampled_totals(rng, n_resamples, matrix.passes, matrix.counts)
        in_emi = np.array([COMPOSITION_SEPARATOR not in env for env in matrix.environments])
        adherence, emi = _indices(passes, counts, matrix.env_of_column, n_env, in_emi)
        emi_low, emi_high = percentile_ci(emi[1:, None], confidence)
        rows.append(
            (
                variant,
                model,
                "emi",
                None,
                float(emi[0]),
                float(emi_low[0]),
                float(emi_high[0]),
                n_resamples,
                n_obs,
            )
        )
        low, high = percentile_ci(adherence[1:], confidence)
        for env_i, env in enumerate(matrix.environments):
            rows.append(
                (
                    variant,
                    model,
                    "adherence",
                    env,
                    float(adherence[0, env_i]),
                    float(low[env_i]),
                    float(high[env_i]),
                    n_resamples,
                    n_obs,
                )
            )
    return pd.DataFrame(
        rows,
        columns=[
            "variant",
            "model",
            "measure",
            "environment",
            "estimate",
            "ci_low",
            "ci_high",
            "n_resamples",
            "n_observations",
        ],
    )


DISPERSION_COLUMNS = ["variant", "model", "estimate", "ci_low", "ci_high", "n_observations"]


def bootstrap_dispersion_of_totals(
    totals: pd.DataFrame,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    exclude: tuple[str, ...] = (Environment.BASELINE.value,),
) -> pd.DataFrame:
    """Per variant x model, the percentile CI of the rubric-level dispersion
    (``analyses.rubric_dispersion_of``) from the per-observation totals (``observation_totals``).

    Each resample recomputes the Rubric Score per environment x rubric, then per rubric the
    sample SD (ddof 1) across the environments other than ``exclude`` and the compositions
    where the rubric has cells in the resample (two at least), then the mean over the rubrics
    that have one. The resamples are those of ``bootstrap_of_totals`` (the same stratum
    generator and observations), so this interval and the EMI's come from the same draws.
    """
    check_bootstrap_settings(n_resamples, confidence)
    rows = []
    for (variant, model), group in totals.groupby(["variant", "model"], sort=True):
        obs_codes, observations = sorted_codes(group["observation_id"])
        environments = group["environment"]
        active = (~environments.isin(list(exclude)) & ~is_composition(environments)).to_numpy()
        rng = stratum_rng(seed, f"{variant}/{model}")  # bootstrap_of_totals' generator
        dispersion = np.full(n_resamples + 1, np.nan)
        if active.any():
            kept = group[active]
            col_codes, column_keys = sorted_codes(
                pd.MultiIndex.from_frame(kept[["environment", "rubric"]])
            )
            rubric_of_column = np.array([rubric for _, rubric in column_keys])
            shape = (len(observations), len(column_keys))
            passes = observation_matrix(
                obs_codes[active], col_codes, kept["passes"].to_numpy(), *shape
            )
            counts = observation_matrix(obs_codes[active], col_codes, kept["n"].to_numpy(), *shape)
            dispersion = _dispersion(
                *resampled_totals(rng, n_resamples, passes, counts), rubric_of_column
            )
        low, high = percentile_ci(dispersion[1:, None], confidence)
        rows.append(
            (
                variant,
                model,
                float(dispersion[0]),
                float(low[0]),
                float(high[0]),
                len(observations),
            )
        )
    return pd.DataFrame(rows, columns=DISPERSION_COLUMNS).astype({"n_observations": "int64"})


def _dispersion(passes: np.ndarray, counts: np.ndarray, rubric_of_column: np.ndarray) -> np.ndarray:
    """Rows of (pass, count) totals over the active (environment, rubric) columns -> the
    rubric-level dispersion per row (NaN where no rubric is scored in two environments)."""
    rubrics = sorted(set(rubric_of_column))
    spread = np.full((passes.shape[0], len(rubrics)), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = passes / counts  # NaN where a resample has no cells of that column
        for index, rubric in enumerate(rubrics):
            block = scores[:, rubric_of_column == rubric]
            present = ~np.isnan(block)
            n = present.sum(axis=1)
            mean = np.where(n > 0, np.nansum(block, axis=1) / np.maximum(n, 1), np.nan)
            squares = np.nansum((block - mean[:, None]) ** 2, axis=1)
            spread[:, index] = np.where(n > 1, np.sqrt(squares / np.maximum(n - 1, 1)), np.nan)
        some = ~np.isnan(spread)
        return np.where(
            some.any(axis=1), np.nansum(spread, axis=1) / np.maximum(some.sum(axis=1), 1), np.nan
        )

"""Percentile bootstrap CIs for the EMI and the Adherence Indices.

Resampling unit: the observation (observation id), drawn with replacement within each model
(and variant), so all of an observation's answers, environments, rubrics and samples move
together. Each resample recomputes the pooled Rubric Scores, the Adherence Indices (mean over
the rubrics scored in the environment) and the EMI exactly as ``indices`` does. The work is
one matrix product per model: resample counts (B x observations) times per-observation pass
and cell counts (observations x environment-rubric). Each model's generator is seeded from
``seed`` and its own name, so its interval does not depend on which other models are scored.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from polistemics.scoring.cells import scoreable_cells

DEFAULT_RESAMPLES = 1000


@dataclass(frozen=True)
class _ModelMatrix:
    passes: np.ndarray  # observations x (environment, rubric) columns
    counts: np.ndarray
    env_of_column: np.ndarray  # environment index per column
    environments: list[str]


def _model_matrix(cells: pd.DataFrame) -> _ModelMatrix:
    obs_codes, _ = pd.factorize(cells["observation_id"], sort=True)
    by_column = cells.groupby(["environment", "rubric"], sort=True)
    col_codes = by_column.ngroup().to_numpy()
    column_envs = list(by_column.size().index.get_level_values("environment"))
    environments = sorted(set(column_envs))
    env_of_column = np.array([environments.index(env) for env in column_envs])
    shape = (obs_codes.max() + 1, len(column_envs))
    passes = np.zeros(shape)
    counts = np.zeros(shape)
    np.add.at(passes, (obs_codes, col_codes), cells["passed"].to_numpy(dtype=float))
    np.add.at(counts, (obs_codes, col_codes), 1.0)
    return _ModelMatrix(passes, counts, env_of_column, environments)


def _indices(
    passes: np.ndarray, counts: np.ndarray, env_of_column: np.ndarray, n_env: int
) -> tuple[np.ndarray, np.ndarray]:
    """Rows of (pass, count) totals -> (adherence rows x environments, EMI per row)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = passes / counts  # NaN where a resample has no cells of that rubric
        adherence = np.empty((passes.shape[0], n_env))
        for env in range(n_env):
            block = scores[:, env_of_column == env]
            present = ~np.isnan(block)
            adherence[:, env] = np.where(
                present.any(axis=1), np.nansum(block, axis=1) / present.sum(axis=1), np.nan
            )
        logs = np.log(adherence)
        emi = np.exp(np.nanmean(logs, axis=1))
    return adherence, emi


def bootstrap_indices(
    cells: pd.DataFrame,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """One row per variant x model x measure: the EMI (environment None) and the Adherence
    Index per environment, with the full-data estimate and the percentile CI."""
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    if not 0 < confidence < 1:
        raise ValueError("confidence must lie in (0, 1)")
    kept, _ = scoreable_cells(cells)
    tail = (1 - confidence) / 2 * 100
    rows = []
    for (variant, model), group in kept.groupby(["variant", "model"], sort=True):
        matrix = _model_matrix(group)
        n_obs, n_env = matrix.passes.shape[0], len(matrix.environments)
        point_adherence, point_emi = _indices(
            matrix.passes.sum(axis=0, keepdims=True),
            matrix.counts.sum(axis=0, keepdims=True),
            matrix.env_of_column,
            n_env,
        )
        rng = np.random.default_rng([seed, zlib.crc32(f"{variant}/{model}".encode())])
        draws = rng.integers(0, n_obs, size=(n_resamples, n_obs))
        offsets = (np.arange(n_resamples) * n_obs)[:, None]
        weights = np.bincount((draws + offsets).ravel(), minlength=n_resamples * n_obs).reshape(
            n_resamples, n_obs
        )
        adherence, emi = _indices(
            weights @ matrix.passes, weights @ matrix.counts, matrix.env_of_column, n_env
        )
        low, high = np.nanpercentile(emi, [tail, 100 - tail])
        rows.append(
            (
                variant,
                model,
                "emi",
                None,
                float(point_emi[0]),
                float(low),
                float(high),
                n_resamples,
                n_obs,
            )
        )
        for env_i, env in enumerate(matrix.environments):
            low, high = np.nanpercentile(adherence[:, env_i], [tail, 100 - tail])
            rows.append(
                (
                    variant,
                    model,
                    "adherence",
                    env,
                    float(point_adherence[0, env_i]),
                    float(low),
                    float(high),
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

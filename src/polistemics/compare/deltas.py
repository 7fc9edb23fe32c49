"""Differences (side B minus side A) with percentile bootstrap CIs at every grain.

Grains (tables of ``DeltaTables``), each per variant:

- ``emi``: per model; ``adherence``: model x environment; ``rubrics``: model x environment x
  rubric (Rubric Score); ``sub_questions``: model x environment x rubric x sub-question pass
  rate; ``sub_questions_pooled``: model x rubric x sub-question pooled over the environments
  (Fig. 22); ``parties``: party x environment x rubric x sub-question, pooled over models.

Each stratum (variant x model; variant x party for ``parties``) is resampled on its own. All
levels come from the same resampled totals: sub-question pass and cell counts per resample,
summed into Rubric Scores, averaged into Adherence Indices and combined into the EMI exactly as
``scoring.indices`` does, so the estimates equal the indices of the compared cells. Paired
comparisons resample each observation once for both sides (the same weights); unpaired ones
resample each side's observations independently.

Every row also counts its units: ``n_observations_a`` / ``_b``, the observations (the bootstrap's
resampling unit) with at least one cell in the row. An unpaired comparison adds each row's
bootstrap-z p-value (``stats.bootstrap_test``) from the same resamples as its interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from polistemics.compare.matching import PAIRED, Matched
from polistemics.conditions import COMPOSITION_SEPARATOR
from polistemics.stats.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    observation_matrix,
    percentile_ci,
    resample_weights,
    sorted_codes,
    stratum_rng,
)
from polistemics.stats.bootstrap_test import bootstrap_z_pvalues

SQ_KEYS = ["environment", "rubric", "sub_question"]
ESTIMATE_COLUMNS = ["n_a", "n_b", "value_a", "value_b", "delta", "ci_low", "ci_high"]
UNIT_COLUMNS = ["n_observations_a", "n_observations_b"]
BOOTSTRAP_P = "p_value"  # unpaired rows: the bootstrap-z p-value (stats.bootstrap_test)


@dataclass
class Totals:
    """Per column (``keys`` row): pass and cell totals of each side, row 0 the full data and
    then one row per resample; ``cells_a`` / ``cells_b``: each side's observations x columns
    cell counts (to count the observations a column rests on)."""

    keys: pd.DataFrame
    passes_a: np.ndarray
    counts_a: np.ndarray
    passes_b: np.ndarray
    counts_b: np.ndarray
    cells_a: np.ndarray
    cells_b: np.ndarray

    def aggregate(self, by: Sequence[str]) -> Totals:
        """Totals summed over the columns that share ``by``."""
        group, _ = sorted_codes(_joined(self.keys, by))
        n_groups = group.max() + 1 if len(group) else 0
        onehot = np.zeros((len(group), n_groups))
        onehot[np.arange(len(group)), group] = 1.0
        keys = self.keys.loc[:, list(by)].assign(_g=group).drop_duplicates("_g").sort_values("_g")
        return Totals(
            keys.drop(columns="_g").reset_index(drop=True),
            self.passes_a @ onehot,
            self.counts_a @ onehot,
            self.passes_b @ onehot,
            self.counts_b @ onehot,
            self.cells_a @ onehot,
            self.cells_b @ onehot,
        )

    def units(self) -> tuple[np.ndarray, np.ndarray]:
        """Per column, the observations of each side with at least one cell in it."""
        return (self.cells_a > 0).sum(axis=0), (self.cells_b > 0).sum(axis=0)

    def all_units(self) -> tuple[int, int]:
        """The observations of each side with at least one cell in any column."""
        return int((self.cells_a.sum(axis=1) > 0).sum()), int((self.cells_b.sum(axis=1) > 0).sum())

    def rates(self) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.passes_a / self.counts_a, self.passes_b / self.counts_b


def _joined(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """One hashable key per row over ``columns`` (values joined with a separator)."""
    parts = [frame[c].astype(str).to_numpy() for c in columns]
    if not parts:
        return np.zeros(len(frame), dtype=object)
    joined = parts[0].astype(object)
    for part in parts[1:]:
        joined = joined + "\x1f" + part
    return joined


def stratum_totals(
    cells_a: pd.DataFrame,
    cells_b: pd.DataFrame,
    key_columns: Sequence[str],
    *,
    paired: bool,
    rng_names: Sequence[str],
    seed: int,
    resamples: int,
) -> Totals:
    """Both sides' totals per column over ``key_columns``, resampled by observation."""
    key_a, key_b = _joined(cells_a, key_columns), _joined(cells_b, key_columns)
    col_codes, columns = sorted_codes(np.concatenate([key_a, key_b]))
    col_a, col_b = col_codes[: len(key_a)], col_codes[len(key_a) :]
    both = pd.concat(
        [cells_a.loc[:, list(key_columns)], cells_b.loc[:, list(key_columns)]], ignore_index=True
    )
    keys = both.assign(_c=col_codes).drop_duplicates("_c").sort_values("_c")
    keys = keys.drop(columns="_c").reset_index(drop=True)
    n_cols = len(columns)
    if paired:
        obs_codes, observations = sorted_codes(
            np.concatenate([cells_a["observation_id"], cells_b["observation_id"]])
        )
        obs_a, obs_b = obs_codes[: len(cells_a)], obs_codes[len(cells_a) :]
        weights = resample_weights(stratum_rng(seed, *rng_names), len(observations), resamples)
        weights_a = weights_b = weights
        n_obs_a = n_obs_b = len(observations)
    else:
        obs_a, obs_list_a = sorted_codes(cells_a["observation_id"])
        obs_b, obs_list_b = sorted_codes(cells_b["observation_id"])
        n_obs_a, n_obs_b = len(obs_list_a), len(obs_list_b)
        weights_a = resample_weights(stratum_rng(seed, *rng_names, "a"), n_obs_a, resamples)
        weights_b = resample_weights(stratum_rng(seed, *rng_names, "b"), n_obs_b, resamples)

    def totals(obs, cols, cells, n_obs, weights):
        passed = cells["passed"].to_numpy(dtype=float)
        passes = observation_matrix(obs, cols, passed, n_obs, n_cols)
        counts = observation_matrix(obs, cols, np.ones(len(cells)), n_obs, n_cols)
        return weights @ passes, weights @ counts, counts

    passes_a, counts_a, matrix_a = totals(obs_a, col_a, cells_a, n_obs_a, weights_a)
    passes_b, counts_b, matrix_b = totals(obs_b, col_b, cells_b, n_obs_b, weights_b)
    return Totals(keys, passes_a, counts_a, passes_b, counts_b, matrix_a, matrix_b)


def estimate_rows(
    keys: pd.DataFrame,
    draws_a: np.ndarray,
    draws_b: np.ndarray,
    n_a: np.ndarray,
    n_b: np.ndarray,
    confidence: float,
    units: tuple[np.ndarray, np.ndarray],
    *,
    bootstrap_p: bool,
) -> pd.DataFrame:
    """Keys plus n, both sides' estimates, the delta (B - A) and its percentile CI, the units
    (observations) of each side and, with ``bootstrap_p``, the bootstrap-z p-value."""
    low, high = percentile_ci(draws_b[1:] - draws_a[1:], confidence)
    table = keys.reset_index(drop=True).copy()
    table["n_a"] = np.asarray(n_a, dtype="int64")
    table["n_b"] = np.asarray(n_b, dtype="int64")
    table["value_a"] = draws_a[0]
    table["value_b"] = draws_b[0]
    table["delta"] = draws_b[0] - draws_a[0]
    table["ci_low"] = low
    table["ci_high"] = high
    table["n_observations_a"] = np.asarray(units[0], dtype="int64")
    table["n_observations_b"] = np.asarray(units[1], dtype="int64")
    if bootstrap_p:
        table[BOOTSTRAP_P] = bootstrap_z_pvalues(draws_b[0] - draws_a[0], draws_b[1:] - draws_a[1:])
    return table


def rate_table(totals: Totals, confidence: float, *, bootstrap_p: bool) -> pd.DataFrame:
    rates_a, rates_b = totals.rates()
    return estimate_rows(
        totals.keys,
        rates_a,
        rates_b,
        totals.counts_a[0],
        totals.counts_b[0],
        confidence,
        totals.units(),
        bootstrap_p=bootstrap_p,
    )


def _adherence(rubrics: Totals) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """Adherence Index draws per environment (mean of the Rubric Scores scored there) on both
    sides, and the number of rubrics each environment averages."""
    scores_a, scores_b = rubrics.rates()
    environments = sorted(rubrics.keys["environment"].unique())
    env_of = rubrics.keys["environment"].to_numpy()
    shape = (scores_a.shape[0], len(environments))
    adherence_a, adherence_b = np.full(shape, np.nan), np.full(shape, np.nan)
    n_rubrics = np.zeros(len(environments), dtype="int64")
    with np.errstate(invalid="ignore"):
        for i, env in enumerate(environments):
            block = env_of == env
            n_rubrics[i] = block.sum()
            for scores, out in ((scores_a, adherence_a), (scores_b, adherence_b)):
                part = scores[:, block]
                present = ~np.isnan(part)
                out[:, i] = np.where(
                    present.any(axis=1),
                    np.nansum(part, axis=1) / np.maximum(present.sum(axis=1), 1),
                    np.nan,
                )
    return pd.DataFrame({"environment": environments}), adherence_a, adherence_b, n_rubrics


def _emi(adherence: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.exp(np.nanmean(np.log(adherence), axis=1))


@dataclass
class DeltaTables:
    emi: pd.DataFrame
    adherence: pd.DataFrame
    rubrics: pd.DataFrame
    sub_questions: pd.DataFrame
    sub_questions_pooled: pd.DataFrame
    parties: pd.DataFrame

    def items(self) -> list[tuple[str, pd.DataFrame]]:
        return [
            ("emi", self.emi),
            ("adherence", self.adherence),
            ("rubrics", self.rubrics),
            ("sub_questions", self.sub_questions),
            ("sub_questions_pooled", self.sub_questions_pooled),
            ("parties", self.parties),
        ]


def _concat(frames: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True).loc[:, columns]


def model_deltas(
    matched: Matched, resamples: int, seed: int, confidence: float
) -> tuple[list[pd.DataFrame], ...]:
    paired = matched.mode == PAIRED
    emi, adherence, rubrics, sub_q, pooled = [], [], [], [], []
    groups_b = dict(list(matched.cells_b.groupby(["variant", "model"], sort=True, observed=True)))
    for (variant, model), cells_a in matched.cells_a.groupby(
        ["variant", "model"], sort=True, observed=True
    ):
        cells_b = groups_b.get((variant, model))
        if cells_b is None or cells_b.empty:
            continue
        lead = {"variant": variant, "model": model}
        totals = stratum_totals(
            cells_a,
            cells_b,
            SQ_KEYS,
            paired=paired,
            rng_names=(variant, model),
            seed=seed,
            resamples=resamples,
        )
        sub_q.append(rate_table(totals, confidence, bootstrap_p=not paired).assign(**lead))
        pooled.append(
            rate_table(
                totals.aggregate(["rubric", "sub_question"]), confidence, bootstrap_p=not paired
            ).assign(**lead)
        )
        by_rubric = totals.aggregate(["environment", "rubric"])
        rubrics.append(rate_table(by_rubric, confidence, bootstrap_p=not paired).assign(**lead))
        env_keys, adh_a, adh_b, n_rubrics = _adherence(by_rubric)
        by_environment = totals.aggregate(["environment"])
        units_a, units_b = by_environment.units()
        env_units = by_environment.keys.assign(_a=units_a, _b=units_b)
        env_units = env_keys.merge(env_units, on="environment", how="left")
        adherence.append(
            estimate_rows(
                env_keys,
                adh_a,
                adh_b,
                n_rubrics,
                n_rubrics,
                confidence,
                (env_units["_a"].to_numpy(), env_units["_b"].to_numpy()),
                bootstrap_p=not paired,
            ).assign(**lead)
        )
        # The EMI over the paper's environments: a composition (issue 30) stays beside it.
        in_emi = np.array([COMPOSITION_SEPARATOR not in e for e in env_keys["environment"]])
        n_env = np.array([int(in_emi.sum())])
        all_a, all_b = totals.all_units()
        emi.append(
            estimate_rows(
                pd.DataFrame(index=[0]),
                _emi(adh_a[:, in_emi])[:, None],
                _emi(adh_b[:, in_emi])[:, None],
                n_env,
                n_env,
                confidence,
                (np.array([all_a]), np.array([all_b])),
                bootstrap_p=not paired,
            ).assign(**lead)
        )
    return emi, adherence, rubrics, sub_q, pooled


def party_deltas(matched: Matched, resamples: int, seed: int, confidence: float) -> pd.DataFrame:
    """Per party (shared party ids only), pooled over models; each party resampled on its own."""
    paired = matched.mode == PAIRED
    frames = []
    groups_b = dict(
        list(matched.cells_b.groupby(["variant", "party_id"], sort=True, observed=True))
    )
    names = _party_names(matched.cells_a) | _party_names(matched.cells_b)
    for (variant, party), cells_a in matched.cells_a.groupby(
        ["variant", "party_id"], sort=True, observed=True
    ):
        cells_b = groups_b.get((variant, party))
        if cells_b is None or cells_b.empty:
            continue
        totals = stratum_totals(
            cells_a,
            cells_b,
            SQ_KEYS,
            paired=paired,
            rng_names=(variant, "party", party),
            seed=seed,
            resamples=resamples,
        )
        frames.append(
            rate_table(totals, confidence, bootstrap_p=not paired).assign(
                variant=variant, party_id=party, party_name=names.get(party)
            )
        )
    return _concat(
        frames,
        ["variant", "party_id", "party_name", *SQ_KEYS, *_estimates(paired)],
    )


def _estimates(paired: bool) -> list[str]:
    """The columns after a table's keys: the estimates, the units and (unpaired) the p-value."""
    return [*ESTIMATE_COLUMNS, *UNIT_COLUMNS, *([] if paired else [BOOTSTRAP_P])]


def _party_names(cells: pd.DataFrame) -> dict[str, str]:
    named = cells.loc[cells["party_name"].notna(), ["party_id", "party_name"]]
    named = named.drop_duplicates("party_id")
    return dict(zip(named["party_id"], named["party_name"], strict=True))


def delta_tables(
    matched: Matched,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> DeltaTables:
    emi, adherence, rubrics, sub_q, pooled = model_deltas(matched, resamples, seed, confidence)
    lead = ["variant", "model"]
    estimates = _estimates(matched.mode == PAIRED)
    return DeltaTables(
        emi=_concat(emi, [*lead, *estimates]).rename(
            columns={"n_a": "n_environments_a", "n_b": "n_environments_b"}
        ),
        adherence=_concat(adherence, [*lead, "environment", *estimates]).rename(
            columns={"n_a": "n_rubrics_a", "n_b": "n_rubrics_b"}
        ),
        rubrics=_concat(rubrics, [*lead, "environment", "rubric", *estimates]),
        sub_questions=_concat(sub_q, [*lead, *SQ_KEYS, *estimates]),
        sub_questions_pooled=_concat(pooled, [*lead, "rubric", "sub_question", *estimates]),
        parties=party_deltas(matched, resamples, seed, confidence),
    )

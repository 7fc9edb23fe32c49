"""Pass rates, Rubric Scores, Adherence Indices and the EMI (paper Sec. 5.1) at any grain.

- Sub-question pass rate: share of passing cells of a sub-question.
- Rubric Score: pooled share of passing sub-question cells within a rubric and environment
  (sum of passes / number of cells, so a rubric's sub-questions weigh by their cell counts).
- Adherence Index: mean of the Rubric Scores of the rubrics scored in the environment
  (only Epistemic Calibration in Absent).
- EMI: geometric mean of the Adherence Indices across environments (0 if any index is 0). The
  paper's EMI is over its six environments: a composition (issue 30) has its Adherence Index
  beside them but never enters the EMI (docs/environments-combined.md).

Every table is grouped by ``variant`` first (ablations never pool with the full variant),
then by the caller's grain columns (e.g. model, party_id, country, language, vague_mode).
Sub-question keys outside App. F, or inactive in an environment, are dropped and counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from polistemics.conditions import COMPOSITION_SEPARATOR
from polistemics.scoring.cells import group_keys, grouped, plain, scoreable_cells, size_and_sum

GRAINS: dict[str, tuple[str, ...]] = {
    "model": ("model",),
    "party": ("model", "party_id", "party_name"),
    "country": ("model", "country"),
    "language": ("model", "language"),
    "vague_mode": ("model", "vague_mode"),
}


def sub_question_rates(cells: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Pass rate per grain x environment x rubric x sub-question (columns n, passes, pass_rate)."""
    kept, _ = scoreable_cells(cells)
    return _pooled(kept, [*group_keys(by), "environment", "rubric", "sub_question"], "pass_rate")


def rubric_scores(cells: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Rubric Score per grain x environment x rubric (columns n, passes, score)."""
    kept, _ = scoreable_cells(cells)
    return _pooled(kept, [*group_keys(by), "environment", "rubric"], "score")


def adherence_indices(cells: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Adherence Index per grain x environment (columns adherence, n_rubrics)."""
    return _adherence_from_rubrics(rubric_scores(cells, by), by)


def emi_scores(cells: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """EMI per grain (columns emi, n_environments)."""
    return _emi_from_adherence(adherence_indices(cells, by), by)


@dataclass
class ScoreTables:
    """All levels for one grain, from the same filtered cells."""

    by: tuple[str, ...]
    sub_questions: pd.DataFrame
    rubrics: pd.DataFrame
    adherence: pd.DataFrame
    emi: pd.DataFrame
    ignored: Counter[str] = field(default_factory=Counter)


def scores_by(cells: pd.DataFrame, by: Sequence[str] = ("model",)) -> ScoreTables:
    """Every level (sub-question, rubric, adherence, EMI) grouped by ``by``."""
    kept, ignored = scoreable_cells(cells)
    keys = group_keys(by)
    sub_q = _pooled(kept, [*keys, "environment", "rubric", "sub_question"], "pass_rate")
    rubrics = _pooled(kept, [*keys, "environment", "rubric"], "score")
    adherence = _adherence_from_rubrics(rubrics, by)
    return ScoreTables(
        tuple(by), sub_q, rubrics, adherence, _emi_from_adherence(adherence, by), ignored
    )


def scores_at(cells: pd.DataFrame, grain: str) -> ScoreTables:
    """Scores at a named grain: one of ``GRAINS`` (model, party, country, language, vague_mode)."""
    if grain not in GRAINS:
        raise ValueError(f"unknown grain '{grain}' (known: {', '.join(GRAINS)})")
    return scores_by(cells, GRAINS[grain])


def model_scores_table(cells: pd.DataFrame) -> ScoreTables:
    return scores_at(cells, "model")


def party_scores(cells: pd.DataFrame) -> ScoreTables:
    return scores_at(cells, "party")


def country_scores(cells: pd.DataFrame) -> ScoreTables:
    return scores_at(cells, "country")


def language_scores(cells: pd.DataFrame) -> ScoreTables:
    return scores_at(cells, "language")


def vague_mode_scores(cells: pd.DataFrame) -> ScoreTables:
    return scores_at(cells, "vague_mode")


def _pooled(cells: pd.DataFrame, keys: list[str], value: str) -> pd.DataFrame:
    if cells.empty:
        return pd.DataFrame(columns=[*keys, "n", "passes", value])
    table = size_and_sum(cells, keys, "passed")
    if table is None:  # missing keys (dropna matters), or not the boolean cells
        table = plain(
            grouped(cells, keys, dropna=False, sort=True)["passed"]
            .agg(n="size", passes="sum")
            .reset_index()
        )
        table["passes"] = table["passes"].astype("int64")
    table[value] = table["passes"] / table["n"]
    return table


def _adherence_from_rubrics(rubrics: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    keys = [*group_keys(by), "environment"]
    if rubrics.empty:
        return pd.DataFrame(columns=[*keys, "adherence", "n_rubrics"])
    return (
        rubrics.groupby(keys, dropna=False, sort=True)["score"]
        .agg(adherence="mean", n_rubrics="size")
        .reset_index()
    )


def _emi_from_adherence(adherence: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    keys = group_keys(by)
    if not adherence.empty:
        adherence = adherence[~is_composition(adherence["environment"])]
    if adherence.empty:
        return pd.DataFrame(columns=[*keys, "emi", "n_environments"])
    return (
        adherence.groupby(keys, dropna=False, sort=True)["adherence"]
        .agg(emi=geometric_mean, n_environments="size")
        .reset_index()
    )


def is_composition(environments: pd.Series) -> pd.Series:
    """Which rows name a composition (issue 30) rather than one of the six environments
    (decided once per distinct name, not per row)."""
    codes, names = pd.factorize(environments)
    named = np.array([COMPOSITION_SEPARATOR in str(name) for name in names] + [False])
    return pd.Series(named[codes], index=environments.index, name=environments.name)


def geometric_mean(values: Sequence[float] | pd.Series | np.ndarray) -> float:
    """exp(mean(log x)); 0 when any value is 0, NaN for no values."""
    array = np.asarray(values, dtype="float64")
    if array.size == 0:
        return float("nan")
    if np.any(array < 0):
        raise ValueError("geometric mean of negative values")
    if np.any(array == 0):
        return 0.0
    return float(np.exp(np.log(array).mean()))

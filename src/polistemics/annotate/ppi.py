"""Rubric Scores, Adherence Indices and the EMI corrected by human labels: prediction-powered
inference (Angelopoulos et al. 2023), issue 17 item 3. The method is in docs/human-validation.md.

For a population of N answers x rubric (e.g. one model's answers in one environment) with
panel scores f_j on all of them, and n labelled sample answers with human scores Y_i, panel
scores f_i and sample weights w_i (inverse inclusion probabilities, normalised to mean 1 over
the n):

    theta = mean_j f_j + mean_i w_i (Y_i - f_i)
    se^2  = var(f) / N + var(w (Y - f)) / n          (population variances, ddof = 0)
    CI    = theta -/+ z_(1 - alpha/2) se

which is ``ppi_py.ppi_mean_ci`` with ``lam=1`` (classical PPI, no power tuning). It is written
here, a few lines of numpy, because ``ppi-python`` pulls numba (and scikit-learn, gdown) into a
package that needs neither; the tests check it equals ``ppi_py`` on the same data. The Adherence
Index is linear in the Rubric Scores, so its correction is the mean of theirs; the EMI (a
geometric mean) is the geometric mean of the corrected Adherence Indices with a delta-method CI
on the log scale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm

from polistemics.annotate.small_sample import COLUMN as SMALL_SAMPLE
from polistemics.annotate.small_sample import is_small
from polistemics.conditions import ENVIRONMENT_ORDER, Environment
from polistemics.rubrics import BY_KEY, Rubric, sub_questions
from polistemics.scoring.cells import ITEM_COLUMNS, group_keys, plain, scoreable_cells
from polistemics.scoring.indices import geometric_mean

ALPHA = 0.05  # 95% intervals
MIN_LABELLED = 2  # fewer labelled answers in a population: no correction (no variance)
ANSWER_RUBRIC = [*ITEM_COLUMNS, "rubric"]


@dataclass(frozen=True)
class Rectifier:
    """The labelled part of a PPI estimate: the weighted mean of (human - panel) and its
    variance."""

    mean: float
    variance: float  # of the mean
    n: int


@dataclass(frozen=True)
class PPIEstimate:
    estimate: float
    ci_low: float
    ci_high: float
    std_error: float
    panel_mean: float  # the panel-only estimate: mean_j f_j
    n_total: int
    n_labelled: int


def rectifier(
    truth: np.ndarray, predicted: np.ndarray, weights: np.ndarray | None = None
) -> Rectifier:
    y, f = np.asarray(truth, dtype="float64"), np.asarray(predicted, dtype="float64")
    n = len(y)
    if n == 0:
        return Rectifier(float("nan"), float("nan"), 0)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype="float64")
    if np.any(w <= 0) or not np.all(np.isfinite(w)):
        raise ValueError("sample weights must be positive and finite")
    terms = w / w.mean() * (y - f)
    return Rectifier(float(terms.mean()), float(terms.var() / n), n)


def ppi_mean(
    truth: np.ndarray,
    predicted: np.ndarray,
    all_predicted: np.ndarray,
    weights: np.ndarray | None = None,
    alpha: float = ALPHA,
) -> PPIEstimate:
    """PPI estimate and CI of the population mean of the truth (see the module docstring)."""
    every = np.asarray(all_predicted, dtype="float64")
    rect = rectifier(truth, predicted, weights)
    return _estimate(float(every.mean()), float(every.var() / len(every)), len(every), rect, alpha)


def _estimate(
    panel_mean: float, panel_variance: float, n_total: int, rect: Rectifier, alpha: float
) -> PPIEstimate:
    if rect.n < MIN_LABELLED:
        nan = float("nan")
        return PPIEstimate(nan, nan, nan, nan, panel_mean, n_total, rect.n)
    estimate = panel_mean + rect.mean
    se = math.sqrt(panel_variance + rect.variance)
    z = float(norm.ppf(1 - alpha / 2))
    return PPIEstimate(
        estimate, estimate - z * se, estimate + z * se, se, panel_mean, n_total, rect.n
    )


def panel_answer_scores(cells: pd.DataFrame) -> pd.DataFrame:
    """Each answer x rubric's panel score: its share of passing (majority-voted) sub-question
    cells, the per-answer form of ``scoring.indices.rubric_scores`` (whose pooled share is the
    mean of these where every answer has all its cells). Columns ``ANSWER_RUBRIC`` + score."""
    kept, _ = scoreable_cells(cells)
    if kept.empty:
        return pd.DataFrame(columns=[*ANSWER_RUBRIC, "score"])
    # observed=True and plain: a compact frame (``scoring.cells.compact_cells``) gives the
    # answers and text keys its text columns give
    return plain(
        kept.groupby(ANSWER_RUBRIC, dropna=False, sort=True, observed=True)["passed"]
        .mean()
        .rename("score")
        .reset_index()
    )


def human_answer_scores(labels: pd.DataFrame) -> pd.DataFrame:
    """Each labelled sample item's human score: per annotator who answered every active
    sub-question, the share that pass (``SubQuestion.passes``, as the panel's verdicts are
    scored); then the mean over those annotators.

    ``labels``: sample_id, annotator, sub_question (release key), says_yes, environment,
    rubric. Returns sample_id, human_score, n_annotators.
    """
    if labels.empty:
        return pd.DataFrame(columns=["sample_id", "human_score", "n_annotators"])
    passes = [
        BY_KEY[key].passes(bool(yes), Environment(env))
        for key, yes, env in zip(
            labels["sub_question"], labels["says_yes"], labels["environment"], strict=True
        )
    ]
    scored = labels.assign(passes=passes)
    per_annotator = (
        scored.groupby(
            ["sample_id", "annotator", "rubric", "environment"], sort=True, observed=True
        )
        .agg(score=("passes", "mean"), answered=("passes", "size"))
        .reset_index()
    )
    active = {
        (rubric.value, env.value): len(sub_questions(rubric, env))
        for rubric in Rubric
        for env in ENVIRONMENT_ORDER
    }
    wanted = [
        active[pair]
        for pair in zip(per_annotator["rubric"], per_annotator["environment"], strict=True)
    ]
    complete = per_annotator[per_annotator["answered"] == wanted]
    return (
        complete.groupby("sample_id", sort=True, observed=True)
        .agg(human_score=("score", "mean"), n_annotators=("annotator", "size"))
        .reset_index()
    )


CORRECTED_COLUMNS = (
    "n_answers",
    "n_labelled",
    "panel",
    "corrected",
    "ci_low",
    "ci_high",
    "std_error",
    "difference",
    SMALL_SAMPLE,  # the correction rests on fewer than 30 labelled items (of a rubric)
)


def corrected_rubric_scores(
    panel: pd.DataFrame, labelled: pd.DataFrame, by: Sequence[str] = ("model",)
) -> pd.DataFrame:
    """PPI-corrected Rubric Score per grain x environment x rubric (``CORRECTED_COLUMNS``).

    ``panel``: ``panel_answer_scores`` of every answer; ``labelled``: ``ANSWER_RUBRIC`` +
    human_score + weight, one row per labelled sample item (its panel score is looked up).
    """
    keys = [*group_keys(by), "environment", "rubric"]
    rows = []
    for key, population, sample in _populations(panel, labelled, keys):
        est = ppi_mean(
            sample["human_score"].to_numpy(),
            sample["score"].to_numpy(),
            population["score"].to_numpy(),
            sample["weight"].to_numpy(),
        )
        rows.append((*key, *_columns(est)))
    return pd.DataFrame(rows, columns=[*keys, *CORRECTED_COLUMNS])


def corrected_adherence(
    panel: pd.DataFrame, labelled: pd.DataFrame, by: Sequence[str] = ("model",)
) -> pd.DataFrame:
    """PPI-corrected Adherence Index per grain x environment (``CORRECTED_COLUMNS``).

    The index is the mean of the environment's R Rubric Scores, so its correction is the mean
    of the rubrics' rectifiers. Variance: the panel part from each answer's mean rubric score
    (the rubric scores of one answer are correlated), plus sum_r var(rectifier_r) / R^2 (each
    rubric's labelled items are drawn in strata of their own). No correction when a rubric has
    fewer than ``MIN_LABELLED`` labelled answers.
    """
    keys = [*group_keys(by), "environment"]
    rows = []
    for key, population, sample in _populations(panel, labelled, keys):
        rubrics = sorted(population["rubric"].unique())
        per_rubric = population.groupby("rubric", observed=True)["score"].mean()
        per_answer = population.groupby(list(ITEM_COLUMNS), dropna=False, observed=True)[
            "score"
        ].mean()
        rects = []
        for rubric in rubrics:
            part = sample[sample["rubric"] == rubric]
            rects.append(
                rectifier(
                    part["human_score"].to_numpy(),
                    part["score"].to_numpy(),
                    part["weight"].to_numpy(),
                )
            )
        combined = Rectifier(
            float(np.mean([r.mean for r in rects])),
            float(sum(r.variance for r in rects) / len(rects) ** 2),
            min(r.n for r in rects),
        )
        est = _estimate(
            float(per_rubric.mean()),
            float(per_answer.var(ddof=0) / len(per_answer)),
            len(per_answer),
            combined,
            ALPHA,
        )
        rows.append((*key, *_columns(est, n_labelled=len(sample), n_units=combined.n)))
    return pd.DataFrame(rows, columns=[*keys, *CORRECTED_COLUMNS])


EMI_COLUMNS = (
    "n_environments",
    "n_labelled",
    "panel",
    "corrected",
    "ci_low",
    "ci_high",
    "difference",
    SMALL_SAMPLE,  # some environment's correction rests on fewer than 30 labelled items
)


def corrected_emi(adherence: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """EMI from ``corrected_adherence``: the geometric mean of the corrected indices, CI by the
    delta method on the log scale (environments' estimates are independent: disjoint answers
    and sample strata). NaN when an environment has no correction or a corrected index <= 0."""
    keys = group_keys(by)
    rows = []
    for key, group in adherence.groupby(keys, sort=True, dropna=False, observed=True):
        panel_emi = geometric_mean(group["panel"].clip(lower=0))
        corrected = group["corrected"].to_numpy(dtype="float64")
        se = group["std_error"].to_numpy(dtype="float64")
        if np.all(np.isfinite(corrected)) and np.all(corrected > 0):
            emi = float(np.exp(np.log(corrected).mean()))
            se_log = float(np.sqrt(((se / corrected) ** 2).sum()) / len(corrected))
            z = float(norm.ppf(1 - ALPHA / 2))
            low, high = emi * math.exp(-z * se_log), emi * math.exp(z * se_log)
        else:
            emi = low = high = float("nan")
        # (a hand-made ``adherence`` without the count columns: unknown, so flagged)
        small = bool(group[SMALL_SAMPLE].any()) if SMALL_SAMPLE in group else True
        n_labelled = int(group["n_labelled"].sum()) if "n_labelled" in group else None
        rows.append(
            (*key, len(group), n_labelled, panel_emi, emi, low, high, emi - panel_emi, small)
        )
    return pd.DataFrame(rows, columns=[*keys, *EMI_COLUMNS])


def _populations(panel: pd.DataFrame, labelled: pd.DataFrame, keys: list[str]):
    """Each population (group of ``keys``) of panel scores with its labelled items, which carry
    their panel score as ``score`` (labelled items without one are not used)."""
    sample = labelled.merge(panel, on=ANSWER_RUBRIC, how="inner")
    samples = dict(iter(sample.groupby(keys, sort=True, dropna=False, observed=True)))
    empty = sample.iloc[:0]
    for key, population in panel.groupby(keys, sort=True, dropna=False, observed=True):
        yield key, population, samples.get(key, empty)


def _columns(est: PPIEstimate, n_labelled: int | None = None, n_units: int | None = None) -> tuple:
    """``CORRECTED_COLUMNS`` of an estimate; ``n_units``: the labelled items the correction
    rests on, when not ``est.n_labelled`` (the Adherence Index: its rubric with fewest)."""
    return (
        est.n_total,
        est.n_labelled if n_labelled is None else n_labelled,
        est.panel_mean,
        est.estimate,
        est.ci_low,
        est.ci_high,
        est.std_error,
        est.estimate - est.panel_mean,
        is_small(est.n_labelled if n_units is None else n_units),
    )

"""Differences in a task's deterministic checks (issue 29), side B minus side A, with
percentile bootstrap intervals and tests.

A task gives its checks per answer as ratio parts (``tasks.views``: one numerator and one
denominator per answer and metric; a metric over answers is the sum of numerators over the sum
of denominators, as set precision, recall and F1, the omission rate and the share of answers
inventing a party are). Per model x environment the answers are resampled with replacement
(``stats.resample_weights``, seeded per stratum), all metrics of a resample from the same
answers. When both sides hold answers to the same items (same item key and sample) the
comparison is *paired*: only those answers are kept and one resample serves both sides;
otherwise each side is resampled on its own. Each row's p-value is the bootstrap z of its
difference (``stats.bootstrap_z_pvalues``, from the same resamples as the interval), adjusted
by Holm over the rows of the table (``unpaired.with_bootstrap_tests``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from polistemics.compare.judged import CompareOptions, with_small_sample_flags
from polistemics.compare.unpaired import with_bootstrap_tests
from polistemics.stats import percentile_ci, resample_weights, stratum_rng
from polistemics.stats.bootstrap_test import bootstrap_z_pvalues

METRIC_DELTA_COLUMNS = [
    "model",
    "environment",
    "metric",
    "paired",
    "n_a",
    "n_b",
    "value_a",
    "value_b",
    "delta",
    "ci_low",
    "ci_high",
    "p_value",
    "n_observations_a",
    "n_observations_b",
]


def _matrices(
    frame: pd.DataFrame, answers: Sequence[str], metrics: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Answers x metrics numerators and denominators (zero where an answer has no row)."""
    wide = frame.pivot_table(
        index="answer_id",
        columns="metric",
        values=["numerator", "denominator"],
        aggfunc="sum",
        fill_value=0,
    )
    numerators = wide["numerator"].reindex(index=answers, columns=metrics, fill_value=0)
    denominators = wide["denominator"].reindex(index=answers, columns=metrics, fill_value=0)
    return numerators.to_numpy(dtype=float), denominators.to_numpy(dtype=float)


def _ratio_draws(weights: np.ndarray, numerators: np.ndarray, denominators: np.ndarray):
    top, bottom = weights @ numerators, weights @ denominators
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1), np.nan)


def metric_deltas(
    metrics_a: pd.DataFrame,
    metrics_b: pd.DataFrame,
    order: Sequence[str],
    options: CompareOptions,
    rng_name: str,
) -> pd.DataFrame:
    """One row per model x environment x metric both sides have (``order``: the metrics in
    the order shown), with the tests and small-sample flags of the other delta tables."""
    rows = []
    groups_b = dict(list(metrics_b.groupby(["model", "environment"], sort=True)))
    for (model, environment), part_a in metrics_a.groupby(["model", "environment"], sort=True):
        part_b = groups_b.get((model, environment))
        if part_b is None:
            continue
        present = set(part_a["metric"]) | set(part_b["metric"])
        metrics = [m for m in order if m in present] + sorted(present - set(order))
        answers_a = sorted(set(part_a["answer_id"]))
        answers_b = sorted(set(part_b["answer_id"]))
        shared = sorted(set(answers_a) & set(answers_b))
        paired = bool(shared)
        names = (rng_name, str(model), str(environment))
        if paired:
            answers_a = answers_b = shared
            weights = resample_weights(
                stratum_rng(options.seed, *names), len(shared), options.resamples
            )
            weights_a = weights_b = weights
        else:
            rng_a, rng_b = (
                stratum_rng(options.seed, *names, "a"),
                stratum_rng(options.seed, *names, "b"),
            )
            weights_a = resample_weights(rng_a, len(answers_a), options.resamples)
            weights_b = resample_weights(rng_b, len(answers_b), options.resamples)
        num_a, den_a = _matrices(part_a, answers_a, metrics)
        num_b, den_b = _matrices(part_b, answers_b, metrics)
        draws_a = _ratio_draws(weights_a, num_a, den_a)
        draws_b = _ratio_draws(weights_b, num_b, den_b)
        low, high = percentile_ci(draws_b[1:] - draws_a[1:], options.confidence)
        p_values = bootstrap_z_pvalues(draws_b[0] - draws_a[0], draws_b[1:] - draws_a[1:])
        for i, metric in enumerate(metrics):
            rows.append(
                {
                    "model": model,
                    "environment": environment,
                    "metric": metric,
                    "paired": paired,
                    "n_a": int(den_a[:, i].sum()),
                    "n_b": int(den_b[:, i].sum()),
                    "value_a": draws_a[0, i],
                    "value_b": draws_b[0, i],
                    "delta": draws_b[0, i] - draws_a[0, i],
                    "ci_low": low[i],
                    "ci_high": high[i],
                    "p_value": p_values[i],
                    "n_observations_a": len(answers_a),
                    "n_observations_b": len(answers_b),
                }
            )
    table = pd.DataFrame(rows, columns=METRIC_DELTA_COLUMNS)
    if table.empty:
        table = table.astype({"paired": bool})
    return with_small_sample_flags(with_bootstrap_tests(table, options.alpha))

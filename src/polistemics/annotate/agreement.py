"""Human-human agreement on the sample items several annotators labelled (issue 17, item 3).

A rated instance is one sample item x sub-question with at least two annotators' Yes/No. Unlike
the judge panel (``scoring.agreement``, a fixed number of raters per instance), annotators
overlap unevenly: an item may want two annotators and get three, or get one so far. So the
coefficients here use the variable-raters forms (Gwet 2014, as irrCAC computes them):

- percent agreement P_o: mean over instances of the share of agreeing annotator pairs;
- category shares p_k: mean over instances of each instance's share of k ratings;
- Fleiss' kappa: chance P_e = sum_k p_k^2; Gwet's AC1: P_e = sum_k p_k (1 - p_k) / (q - 1).

With the same number of raters everywhere they equal ``scoring.agreement`` (tested). Instances
with a single annotator are not agreement data and are left out (``n_single`` counts them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

LABEL_KEY = ("sample_id", "sub_question")
POOLED = "all"  # the group value of a table's pooled row


@dataclass(frozen=True)
class HumanAgreement:
    n_items: int  # rated instances (sample item x sub-question) with >= 2 annotators
    n_ratings: int  # labels on those instances
    percent_agreement: float
    fleiss_kappa: float
    gwet_ac1: float


def rating_counts(labels: pd.DataFrame, extra: Sequence[str] = ()) -> pd.DataFrame:
    """One row per sample item x sub-question: ``n_yes``, ``n_raters`` (and ``extra`` columns,
    which must be constant within an instance, e.g. rubric or environment)."""
    keys = [*LABEL_KEY, *extra]
    if labels.empty:
        return pd.DataFrame(columns=[*keys, "n_yes", "n_raters"])
    return (
        labels.assign(says_yes=labels["says_yes"].astype(bool))
        .groupby(keys, sort=True, dropna=False)["says_yes"]
        .agg(n_yes="sum", n_raters="size")
        .reset_index()
        .astype({"n_yes": "int64", "n_raters": "int64"})
    )


def agreement_of(n_yes: np.ndarray, n_raters: np.ndarray) -> HumanAgreement:
    """Binary (No, Yes) agreement of instances with ``n_raters >= 2`` ratings each."""
    yes = np.asarray(n_yes, dtype="float64")
    raters = np.asarray(n_raters, dtype="float64")
    keep = raters >= 2
    yes, raters = yes[keep], raters[keep]
    if not len(raters):
        nan = float("nan")
        return HumanAgreement(0, 0, nan, nan, nan)
    table = np.column_stack([raters - yes, yes])
    observed = float(((table * (table - 1)).sum(axis=1) / (raters * (raters - 1))).mean())
    shares = (table / raters[:, None]).mean(axis=0)
    fleiss_chance = float((shares**2).sum())
    gwet_chance = float((shares * (1 - shares)).sum())  # / (q - 1) with q = 2
    return HumanAgreement(
        n_items=int(len(raters)),
        n_ratings=int(raters.sum()),
        percent_agreement=observed,
        fleiss_kappa=_coefficient(observed, fleiss_chance),
        gwet_ac1=_coefficient(observed, gwet_chance),
    )


def _coefficient(observed: float, chance: float) -> float:
    """(P_o - P_e) / (1 - P_e); NaN when chance agreement is certain (one category only)."""
    if math.isclose(chance, 1.0, rel_tol=0.0, abs_tol=1e-12):
        return float("nan")
    return (observed - chance) / (1.0 - chance)


AGREEMENT_COLUMNS = (
    "n_items",
    "n_ratings",
    "n_single",
    "n_annotators",
    "percent_agreement",
    "fleiss_kappa",
    "gwet_ac1",
)


def human_agreement(labels: pd.DataFrame, by: Sequence[str] = ("sub_question",)) -> pd.DataFrame:
    """Agreement per group of ``by`` (columns of ``labels``), then one pooled row (``by``
    columns set to ``POOLED``).

    ``labels``: one row per annotator x sample item x sub-question with ``annotator``,
    ``sample_id``, ``sub_question``, ``says_yes`` and the ``by`` columns.
    """
    by = list(by)
    counts = rating_counts(labels, [c for c in by if c not in LABEL_KEY])
    rows = []
    groups = [] if counts.empty or not by else list(counts.groupby(by, sort=True, dropna=False))
    for key, group in groups:
        rows.append((*key, *_row(labels, group, by, key)))
    rows.append((*([POOLED] * len(by)), *_row(labels, counts, [], ())))
    return pd.DataFrame(rows, columns=[*by, *AGREEMENT_COLUMNS])


def _row(labels: pd.DataFrame, counts: pd.DataFrame, by: list[str], key: tuple) -> tuple:
    if counts.empty:
        stats = agreement_of(np.zeros(0), np.zeros(0))
        return (0, 0, 0, 0, *_values(stats))
    stats = agreement_of(counts["n_yes"].to_numpy(), counts["n_raters"].to_numpy())
    chosen = labels
    for column, value in zip(by, key, strict=True):
        chosen = chosen[chosen[column] == value]
    overlapping = counts.loc[counts["n_raters"] >= 2, list(LABEL_KEY)]
    rated = chosen.merge(overlapping, on=list(LABEL_KEY))
    n_single = int((counts["n_raters"] == 1).sum())
    return (stats.n_items, stats.n_ratings, n_single, rated["annotator"].nunique(), *_values(stats))


def _values(stats: HumanAgreement) -> tuple[float, float, float]:
    return stats.percent_agreement, stats.fleiss_kappa, stats.gwet_ac1

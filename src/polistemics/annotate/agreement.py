"""Human-human agreement on the sample items several annotators labelled (issue 17, item 3).

A rated instance is one sample item x sub-question with at least two annotators' Yes/No. Unlike
the judge panel (``scoring.agreement``, a fixed number of raters per instance), annotators
overlap unevenly: an item may want two annotators and get three, or get one so far. So the
coefficients are the variable-raters forms of ``stats.agreement.uneven_agreement`` (Gwet 2014,
as irrCAC computes them): percent agreement, Fleiss' kappa and Gwet's AC1. This module counts
the ratings per instance and groups them. Instances with a single annotator are not agreement
data and are left out (``n_single`` counts them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from polistemics.annotate.small_sample import COLUMN as SMALL_SAMPLE
from polistemics.annotate.small_sample import flag
from polistemics.stats.agreement import UnevenAgreement, uneven_agreement

LABEL_KEY = ("sample_id", "sub_question")
POOLED = "all"  # the group value of a table's pooled row


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


AGREEMENT_COLUMNS = (
    "n_items",
    "n_sample_items",  # distinct sample items rated by >= 2 annotators (the units)
    "n_ratings",
    "n_single",
    "n_annotators",
    "percent_agreement",
    "fleiss_kappa",
    "gwet_ac1",
    SMALL_SAMPLE,  # fewer than 30 sample items: the coefficients are rough
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
    frame = pd.DataFrame(rows, columns=[*by, *AGREEMENT_COLUMNS[:-1]])
    return flag(frame, "n_sample_items")


def _row(labels: pd.DataFrame, counts: pd.DataFrame, by: list[str], key: tuple) -> tuple:
    if counts.empty:
        stats = uneven_agreement(np.zeros(0), np.zeros(0))
        return (0, 0, 0, 0, 0, *_values(stats))
    stats = uneven_agreement(counts["n_yes"].to_numpy(), counts["n_raters"].to_numpy())
    chosen = labels
    for column, value in zip(by, key, strict=True):
        chosen = chosen[chosen[column] == value]
    overlapping = counts.loc[counts["n_raters"] >= 2, list(LABEL_KEY)]
    rated = chosen.merge(overlapping, on=list(LABEL_KEY))
    n_single = int((counts["n_raters"] == 1).sum())
    n_sample_items = overlapping["sample_id"].nunique()
    return (
        stats.n_items,
        n_sample_items,
        stats.n_ratings,
        n_single,
        rated["annotator"].nunique(),
        *_values(stats),
    )


def _values(stats: UnevenAgreement) -> tuple[float, float, float]:
    return stats.percent_agreement, stats.fleiss_kappa, stats.gwet_ac1

"""Failure co-occurrence between Faithfulness and Epistemic Calibration (paper Sec. 7.2).

Definition. The unit is one answer (an item: model x environment x variant x observation x
sample) scored on both rubrics. The answer *fails a rubric* when at least one of that rubric's
scored sub-questions fails (its release ``adherence_rate`` is below 1). Over the answers of a
group (default: variant x environment, pooled over models) the 2 x 2 table

                    EC fails   EC passes
    F fails            a           b
    F passes           c           d

gives the phi coefficient, the Pearson correlation of the two failure indicators:

    phi = (a d - b c) / sqrt((a + b) (c + d) (a + c) (b + d))

+1: the rubrics always fail together; 0: independent; NaN when a margin is empty (one rubric
never or always fails). |phi| equals Cramer's V of the table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from polistemics.rubrics import Rubric
from polistemics.scoring.cells import ITEM_COLUMNS, scoreable_cells

FAITHFULNESS = Rubric.FAITHFULNESS.value
CALIBRATION = Rubric.EPISTEMIC_CALIBRATION.value
COOCCURRENCE_COLUMNS = [
    "n_answers",
    "both_fail",
    "faithfulness_only",
    "calibration_only",
    "neither",
    "faithfulness_failure_rate",
    "calibration_failure_rate",
    "phi",
]


def phi_coefficient(a: int, b: int, c: int, d: int) -> float:
    """Phi of the 2 x 2 table [[a, b], [c, d]]; NaN when a row or column sums to zero."""
    denominator = (a + b) * (c + d) * (a + c) * (b + d)
    if denominator == 0:
        return float("nan")
    return (a * d - b * c) / math.sqrt(denominator)


def rubric_failures(cells: pd.DataFrame) -> pd.DataFrame:
    """One row per answer scored on both rubrics: ``faithfulness_fails``, ``calibration_fails``."""
    kept, _ = scoreable_cells(cells)
    both = kept[kept["rubric"].isin([FAITHFULNESS, CALIBRATION])]
    keys = list(ITEM_COLUMNS)
    failed = (
        both.assign(failed=~both["passed"].astype(bool))
        .groupby([*keys, "rubric"], dropna=False, sort=False)["failed"]
        .any()
        .unstack("rubric")
    )
    if FAITHFULNESS not in failed.columns or CALIBRATION not in failed.columns:
        return pd.DataFrame(columns=[*keys, "faithfulness_fails", "calibration_fails"])
    failed = failed.dropna(subset=[FAITHFULNESS, CALIBRATION]).astype(bool)
    return failed.rename(
        columns={FAITHFULNESS: "faithfulness_fails", CALIBRATION: "calibration_fails"}
    ).reset_index()[[*keys, "faithfulness_fails", "calibration_fails"]]


def failure_cooccurrence(
    cells: pd.DataFrame, by: Sequence[str] = ("variant", "environment")
) -> pd.DataFrame:
    """The 2 x 2 failure counts and phi per group of answers (``by``: columns of the items)."""
    answers = rubric_failures(cells)
    by = list(by)
    if answers.empty:
        return pd.DataFrame(columns=[*by, *COOCCURRENCE_COLUMNS])
    rows = []
    for key, group in answers.groupby(by, sort=True, dropna=False):
        f, ec = group["faithfulness_fails"], group["calibration_fails"]
        a, b = int((f & ec).sum()), int((f & ~ec).sum())
        c, d = int((~f & ec).sum()), int((~f & ~ec).sum())
        n = len(group)
        rows.append(
            (
                *(key if isinstance(key, tuple) else (key,)),
                n,
                a,
                b,
                c,
                d,
                (a + b) / n,
                (a + c) / n,
                phi_coefficient(a, b, c, d),
            )
        )
    return pd.DataFrame(rows, columns=[*by, *COOCCURRENCE_COLUMNS])

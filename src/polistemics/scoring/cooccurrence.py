"""Failure co-occurrence between Faithfulness and Epistemic Calibration (paper Sec. 7.2).

Definition (the one that gives the paper's German 0.489 Vague and 0.814 Contradictory). The unit
is one answer (an item: model x environment x variant x observation x sample) scored on both
Faithfulness and EC1 Epistemic Certainty. The answer *fails Faithfulness* when at least one of its
scored F sub-questions fails; it *fails Epistemic Calibration* when EC1 (Epistemic Certainty)
fails: the answer commits to a stance where it should not, or withholds one where it should. Over
the answers of a group (default: variant x environment, pooled over models) the 2 x 2 table

                    EC fails   EC passes
    F fails            a           b
    F passes           c           d

gives the phi coefficient, the Pearson correlation of the two failure indicators:

    phi = (a d - b c) / sqrt((a + b) (c + d) (a + c) (b + d))

+1: the rubrics always fail together; 0: independent; NaN when a margin is empty (one rubric
never or always fails). |phi| equals Cramer's V of the table.

``phi_any_ec`` is the rubric-level reading, kept beside it for a user who wants the whole rubric:
Epistemic Calibration fails when *any* of its scored sub-questions fails (the tool's definition
before issue 27; German 0.451 / 0.797). Its 2 x 2 counts are not listed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from polistemics.rubrics import BY_CODE, Rubric
from polistemics.scoring.cells import ITEM_COLUMNS, grouped, plain, scoreable_cells
from polistemics.stats import correlation_interval, wilson_interval

FAITHFULNESS = Rubric.FAITHFULNESS.value
CALIBRATION = Rubric.EPISTEMIC_CALIBRATION.value
CERTAINTY = BY_CODE["EC1"].key  # the sub-question whose failure is an EC failure
COOCCURRENCE_COLUMNS = [
    "n_answers",
    "both_fail",
    "faithfulness_only",
    "calibration_only",
    "neither",
    "faithfulness_failure_rate",
    "calibration_failure_rate",
    "phi",
    "phi_any_ec",
    "faithfulness_failure_ci_low",
    "faithfulness_failure_ci_high",
    "calibration_failure_ci_low",
    "calibration_failure_ci_high",
    "phi_ci_low",
    "phi_ci_high",
]
_FAILURES = ["faithfulness_fails", "calibration_fails", "any_calibration_fails"]


def phi_coefficient(a: int, b: int, c: int, d: int) -> float:
    """Phi of the 2 x 2 table [[a, b], [c, d]]; NaN when a row or column sums to zero."""
    denominator = (a + b) * (c + d) * (a + c) * (b + d)
    if denominator == 0:
        return float("nan")
    return (a * d - b * c) / math.sqrt(denominator)


def rubric_failures(cells: pd.DataFrame) -> pd.DataFrame:
    """One row per answer scored on Faithfulness and EC1: ``faithfulness_fails`` (any scored F
    sub-question fails), ``calibration_fails`` (EC1 fails) and ``any_calibration_fails`` (any
    scored EC sub-question fails)."""
    kept, _ = scoreable_cells(cells)
    keys = list(ITEM_COLUMNS)
    failed = kept.assign(failed=~kept["passed"].astype(bool))
    by_answer = [*keys, "rubric"]
    parts = {
        "faithfulness_fails": failed[failed["rubric"] == FAITHFULNESS],
        "calibration_fails": failed[failed["sub_question"] == CERTAINTY],
        "any_calibration_fails": failed[failed["rubric"] == CALIBRATION],
    }
    if parts["faithfulness_fails"].empty or parts["calibration_fails"].empty:
        return pd.DataFrame(columns=[*keys, *_FAILURES])
    columns = [
        grouped(part, by_answer, dropna=False, sort=False)["failed"]
        .any()
        .droplevel("rubric")
        .rename(name)
        for name, part in parts.items()
    ]
    answers = pd.concat(columns, axis=1, join="inner")
    return plain(answers.astype(bool).reset_index()[[*keys, *_FAILURES]])


def _phi_of(failures: pd.Series, other: pd.Series) -> tuple[int, int, int, int, float]:
    a, b = int((failures & other).sum()), int((failures & ~other).sum())
    c, d = int((~failures & other).sum()), int((~failures & ~other).sum())
    return a, b, c, d, phi_coefficient(a, b, c, d)


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
        f = group["faithfulness_fails"]
        a, b, c, d, phi = _phi_of(f, group["calibration_fails"])
        *_, phi_any_ec = _phi_of(f, group["any_calibration_fails"])
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
                phi,
                phi_any_ec,
                *wilson_interval(a + b, n),
                *wilson_interval(a + c, n),
                *correlation_interval(phi, n),
            )
        )
    return pd.DataFrame(rows, columns=[*by, *COOCCURRENCE_COLUMNS])

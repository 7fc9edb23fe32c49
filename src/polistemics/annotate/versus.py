"""Humans against each judge and against the panel majority (issue 17, item 3).

The human verdict on a sample item x sub-question is the strict majority of the annotators who
labelled it; a tie (e.g. one Yes, one No) has none and is left out and counted. Everything is on
the Yes/No level the judges answer (not pass/fail), with the human as the truth:
TP judge Yes & human Yes, FP judge Yes & human No, FN judge No & human Yes, TN both No.

Per judge (and ``PANEL`` for the panel's strict majority) and group: accuracy with its Wilson
95% CI, Gwet's AC1 of the two raters (``stats.agreement``), the confusion counts, and the
judge's bias: P(judge Yes | human No) = FP / (FP + TN) and P(judge No | human Yes) =
FN / (FN + TP), each with a Wilson CI. The figures describe the sample, which oversamples items
the judges split on; ``weighted_accuracy`` weighs items by their inverse inclusion probability
to estimate the accuracy over all judged items.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from polistemics.annotate.agreement import LABEL_KEY, POOLED, rating_counts
from polistemics.annotate.small_sample import COLUMN as SMALL_SAMPLE
from polistemics.annotate.small_sample import flag
from polistemics.stats import gwet_ac1, wilson_interval

PANEL = "panel majority"
GRAINS: dict[str, tuple[str, ...]] = {
    "all": (),
    "sub_question": ("rubric", "sub_question"),
    "rubric": ("rubric",),
    "environment": ("environment",),
    "language": ("language",),
}
VERSUS_COLUMNS = (
    "n",
    "n_items",  # distinct sample items (the units; n counts item x sub-question)
    "tp",
    "fp",
    "fn",
    "tn",
    "accuracy",
    "accuracy_ci_low",
    "accuracy_ci_high",
    "weighted_accuracy",
    "ac1",
    "yes_when_human_no",
    "yes_when_human_no_ci_low",
    "yes_when_human_no_ci_high",
    "no_when_human_yes",
    "no_when_human_yes_ci_low",
    "no_when_human_yes_ci_high",
    SMALL_SAMPLE,  # fewer than 30 sample items: accuracy, AC1 and intervals are rough
)


@dataclass
class HumanMajority:
    verdicts: pd.DataFrame  # sample_id, sub_question, extra columns, n_yes, n_raters, human_yes
    ties: pd.DataFrame  # the instances without a strict majority (same columns, no human_yes)

    @property
    def n_ties(self) -> int:
        return len(self.ties)


def human_majority(labels: pd.DataFrame, extra: Sequence[str] = ()) -> HumanMajority:
    """The annotators' strict majority per sample item x sub-question (one annotator: theirs)."""
    counts = rating_counts(labels, extra)
    yes = counts["n_yes"] * 2 > counts["n_raters"]
    no = (counts["n_raters"] - counts["n_yes"]) * 2 > counts["n_raters"]
    decided = counts[yes | no].assign(human_yes=yes[yes | no].astype(bool))
    return HumanMajority(decided.reset_index(drop=True), counts[~(yes | no)].reset_index(drop=True))


def panel_majority(verdicts: pd.DataFrame) -> pd.DataFrame:
    """The judges' strict majority per sample item x sub-question, as rows of judge ``PANEL``
    (instances without one are left out). ``verdicts``: sample_id, sub_question, judge,
    says_yes."""
    if verdicts.empty:
        return verdicts.iloc[:0].assign(judge=pd.Series(dtype="object"))
    counts = (
        verdicts.assign(says_yes=verdicts["says_yes"].astype(bool))
        .groupby(list(LABEL_KEY), sort=True)["says_yes"]
        .agg(n_yes="sum", n="size")
        .reset_index()
    )
    yes = counts["n_yes"] * 2 > counts["n"]
    no = (counts["n"] - counts["n_yes"]) * 2 > counts["n"]
    decided = counts[yes | no]
    return pd.DataFrame(
        {
            "sample_id": decided["sample_id"],
            "sub_question": decided["sub_question"],
            "judge": PANEL,
            "says_yes": yes[yes | no].astype(bool),
        }
    ).reset_index(drop=True)


def versus_table(
    truth: pd.DataFrame, verdicts: pd.DataFrame, by: Sequence[str] = ()
) -> pd.DataFrame:
    """One row per judge x group of ``by``: ``VERSUS_COLUMNS``.

    ``truth``: ``HumanMajority.verdicts`` with the ``by`` columns (and ``weight``, optional);
    ``verdicts``: sample_id, sub_question, judge, says_yes (include ``panel_majority`` rows to
    compare the panel). Instances a judge gave no verdict on are not counted for that judge.
    """
    by = list(by)
    joined = truth.merge(verdicts, on=list(LABEL_KEY), how="inner")
    if "weight" not in joined.columns:
        joined["weight"] = 1.0
    rows = []
    keys = ["judge", *by]
    if not joined.empty:
        for key, group in joined.groupby(keys, sort=True, dropna=False):
            rows.append((*key, *_compare(group)))
    table = flag(pd.DataFrame(rows, columns=[*keys, *VERSUS_COLUMNS[:-1]]), "n_items")
    # The panel first, then the judges in seat order.
    order = table["judge"].map(lambda j: (j != PANEL, str(j)))
    return table.iloc[sorted(range(len(table)), key=lambda i: order.iloc[i])].reset_index(drop=True)


def _compare(group: pd.DataFrame) -> tuple:
    human = group["human_yes"].to_numpy(dtype=bool)
    judge = group["says_yes"].to_numpy(dtype=bool)
    weight = group["weight"].to_numpy(dtype="float64")
    tp = int((judge & human).sum())
    fp = int((judge & ~human).sum())
    fn = int((~judge & human).sum())
    tn = int((~judge & ~human).sum())
    n = tp + fp + fn + tn
    agree = judge == human
    # Two raters per instance: (No, Yes) counts of the human and the judge.
    yes_votes = human.astype(int) + judge.astype(int)
    ac1 = gwet_ac1(np.column_stack([2 - yes_votes, yes_votes])) if n else float("nan")
    return (
        n,
        group["sample_id"].nunique(),
        tp,
        fp,
        fn,
        tn,
        (tp + tn) / n if n else float("nan"),
        *wilson_interval(tp + tn, n),
        float(np.average(agree, weights=weight)) if n else float("nan"),
        ac1,
        _rate(fp, fp + tn),
        *wilson_interval(fp, fp + tn),
        _rate(fn, fn + tp),
        *wilson_interval(fn, fn + tp),
    )


def _rate(count: int, n: int) -> float:
    return count / n if n else float("nan")


def versus_tables(truth: pd.DataFrame, verdicts: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """``versus_table`` at every grain of ``GRAINS``, the panel majority included; the "all"
    grain has a ``group`` column set to ``POOLED``."""
    compared = pd.concat([panel_majority(verdicts), verdicts], ignore_index=True)
    tables = {grain: versus_table(truth, compared, by) for grain, by in GRAINS.items()}
    tables["all"].insert(1, "group", POOLED)
    return tables

"""Readable names and the paper's orderings for everything the report shows.

Environments use the Table 1 labels, rubrics their names and F/I/EC abbreviations, sub-questions
their App. F codes with titles. Sub-question blocks follow the paper's party figures (Fig. 13:
F, EC, I). How numbers are written is ``formatting.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from polistemics.conditions import ALL_ENVIRONMENTS, Environment, Variant
from polistemics.report.view import Column
from polistemics.rubrics import BY_KEY, SUB_QUESTIONS, Rubric, SubQuestion

RUBRIC_ORDER: tuple[Rubric, ...] = (
    Rubric.FAITHFULNESS,
    Rubric.IMPARTIALITY,
    Rubric.EPISTEMIC_CALIBRATION,
)
# Fig. 13 and the ablation heatmaps separate rubric blocks in this order.
PARTY_FIGURE_RUBRICS: tuple[Rubric, ...] = (
    Rubric.FAITHFULNESS,
    Rubric.EPISTEMIC_CALIBRATION,
    Rubric.IMPARTIALITY,
)
VARIANT_LABELS = {
    Variant.FULL.value: "Full (real labels, native language)",
    Variant.ANONYMIZED.value: "Anonymised labels",
    Variant.ENGLISH.value: "English output",
}


def environment_label(value: str) -> str:
    return Environment(value).label


def rubric_label(value: str) -> str:
    return Rubric(value).label


def sub_question(key: str) -> SubQuestion:
    return BY_KEY[key]


def sub_question_label(key: str) -> str:
    """``F1 Position Representation``."""
    sq = BY_KEY[key]
    return f"{sq.code} {sq.title}"


def sub_question_order(keys: Iterable[str], rubrics: Iterable[Rubric] = RUBRIC_ORDER) -> list[str]:
    """Keys grouped by rubric in the given block order, App. F order within a block."""
    wanted = set(keys)
    return [sq.key for r in rubrics for sq in SUB_QUESTIONS if sq.rubric is r and sq.key in wanted]


def order_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows in the paper's order of whichever of variant, environment, rubric and sub-question
    the table has (then as they were)."""
    ranks = {
        "variant": {v.value: i for i, v in enumerate(Variant)},
        "environment": {e.value: i for i, e in enumerate(ALL_ENVIRONMENTS)},
        "rubric": {r.value: i for i, r in enumerate(RUBRIC_ORDER)},
        "sub_question": {sq.key: i for i, sq in enumerate(SUB_QUESTIONS)},
    }
    keys = [
        c
        for c in ("election_id", "variant", "rubric", "sub_question", "environment")
        if c in frame.columns
    ]
    if frame.empty or not keys:
        return frame
    sort_keys = {}
    for column in keys:
        rank = ranks.get(column)
        sort_keys[f"__{column}"] = (
            frame[column].map(rank).fillna(99) if rank else frame[column].astype(str)
        )
    ordered = frame.assign(**sort_keys).sort_values(list(sort_keys), kind="stable")
    return ordered.drop(columns=list(sort_keys)).reset_index(drop=True)


def variant_label(value: str) -> str:
    """The one display name of a variant on every page, table and figure (``full`` -> ``Full
    (real labels, native language)``); an unknown id as it is."""
    return VARIANT_LABELS.get(value, value)


# Every table with a variant column shows it through this column (a frozen Column is safe to
# reuse), so no table prints the bare id ("anon") where another prints its name.
VARIANT_COLUMN = Column("Variant", lambda r: variant_label(r["variant"]))


class ModelLabels:
    """Display names for model ids (the id itself unless a label was given)."""

    def __init__(self, labels: Mapping[str, str] | None = None):
        self._labels = dict(labels or {})

    def __call__(self, model: str) -> str:
        return self._labels.get(model, model)

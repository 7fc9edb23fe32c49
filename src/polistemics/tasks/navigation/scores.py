"""The navigation task's scores: the tasks' shared aggregation (``tasks.panel_scores``: strict
panel majority per sub-question, Rubric Scores, Adherence Index per environment, EMI) over the
navigation sub-questions' pass rules (``questions``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from polistemics.runlog import JudgeVerdictRecord
from polistemics.tasks import panel_scores
from polistemics.tasks.definition import TaskSubQuestion
from polistemics.tasks.navigation.questions import NAVIGATION_QUESTIONS
from polistemics.tasks.panel_scores import (
    CELL_COLUMNS,
    adherence,
    emi,
    rubric_scores,
    sub_question_rates,
)

BY_KEY = {sq.key: sq for sq in NAVIGATION_QUESTIONS}
__all__ = [
    "BY_KEY",
    "CELL_COLUMNS",
    "adherence",
    "emi",
    "majority_cells",
    "rubric_scores",
    "sub_question_rates",
]


def majority_cells(
    verdicts: Iterable[JudgeVerdictRecord],
    panel_size: int,
    questions: Mapping[str, TaskSubQuestion] = BY_KEY,
) -> tuple[pd.DataFrame, int]:
    """One row per answer x sub-question with a strict panel majority, and the cells excluded
    (``tasks.panel_scores.majority_cells``); ``questions``: the task's sub-questions by key (the
    navigation task's by default)."""
    return panel_scores.majority_cells(verdicts, panel_size, questions.values())

"""The comparison task's scores: the tasks' shared aggregation (``tasks.panel_scores``: strict
panel majority per sub-question, Rubric Scores, Adherence Index per environment, EMI) over the
comparison sub-questions' pass rules (``questions``)."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from polistemics.runlog import JudgeVerdictRecord
from polistemics.tasks import panel_scores
from polistemics.tasks.comparison.questions import COMPARISON_QUESTIONS

BY_KEY = {sq.key: sq for sq in COMPARISON_QUESTIONS}


def majority_cells(
    verdicts: Iterable[JudgeVerdictRecord], panel_size: int
) -> tuple[pd.DataFrame, int]:
    return panel_scores.majority_cells(verdicts, panel_size, COMPARISON_QUESTIONS)

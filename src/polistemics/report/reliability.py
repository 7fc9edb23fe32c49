"""Judge reliability (App. G.1, Tables 12-13) as the report draws it: the agreement tables of
``analyses.agreement``, as read back from ``tables/``."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from polistemics.analyses.tables import AnalysisTables


@dataclass
class ReliabilityTables:
    by_rubric: pd.DataFrame  # Table 12
    by_sub_question: pd.DataFrame
    by_language: pd.DataFrame  # Table 13 (output language: the English ablation is its own)
    by_sub_question_language: pd.DataFrame
    excluded: pd.DataFrame  # items x rubric without a complete panel
    panel_size: int


def reliability_tables(analyses: AnalysisTables, panel_size: int) -> ReliabilityTables | None:
    """The agreement tables; None when the source had no raw judge verdicts."""
    tables = (
        analyses.agreement_by_rubric,
        analyses.agreement_by_sub_question,
        analyses.agreement_by_language,
        analyses.agreement_by_sub_question_language,
        analyses.excluded_items,
    )
    if any(table is None for table in tables):
        return None
    by_rubric, by_sub_question, by_language, by_sub_question_language, excluded = tables
    return ReliabilityTables(
        by_rubric=by_rubric,
        by_sub_question=by_sub_question,
        by_language=by_language,
        by_sub_question_language=by_sub_question_language,
        excluded=excluded,
        panel_size=panel_size,
    )

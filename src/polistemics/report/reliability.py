"""Judge reliability (App. G.1, Tables 12-13) from a run's raw judge verdicts.

Agreement uses the panel's vote counts (``scoring.verdicts.PanelTally``, the same counts the
majority vote is taken from), grouped like ``scoring.agreement.agreement_table`` but computed
once for all the report's groupings.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from polistemics.scoring.agreement import agreement_by
from polistemics.scoring.verdicts import ITEM_RUBRIC, PanelTally


@dataclass
class ReliabilityTables:
    by_rubric: pd.DataFrame  # Table 12
    by_sub_question: pd.DataFrame
    by_language: pd.DataFrame  # Table 13 (output language: the English ablation is its own)
    by_sub_question_language: pd.DataFrame
    excluded: pd.DataFrame  # items x rubric without a complete panel
    panel_size: int


def reliability_tables(tally: PanelTally) -> ReliabilityTables:
    """Agreement at every grain from the panel's vote counts."""
    counts, excluded = tally.counts, tally.excluded
    return ReliabilityTables(
        by_rubric=agreement_by(counts, ("rubric",)),
        by_sub_question=agreement_by(counts, ("rubric", "sub_question")),
        by_language=agreement_by(counts, ("rubric", "language")),
        by_sub_question_language=agreement_by(counts, ("rubric", "sub_question", "language")),
        excluded=excluded.loc[:, [*ITEM_RUBRIC, "n_complete_judges"]]
        if not excluded.empty
        else excluded,
        panel_size=tally.panel_size,
    )

"""Inter-judge agreement (paper App. G.1, Tables 12-13) from a run's panel vote counts: the
report's "Judge reliability" section shows these tables.

Agreement uses the panel's vote counts (``scoring.verdicts.PanelTally``, the same counts the
majority vote is taken from), grouped like ``scoring.agreement.agreement_table`` but computed
once for all the report's groupings. Every table is ``optional``: None (no file) for a source
without raw judge verdicts (an authors' release).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from polistemics.analyses.columns import RUBRIC, SUB_QUESTION
from polistemics.analyses.schema import TableColumn, TableSchema
from polistemics.scoring.panel_agreement import panel_agreement
from polistemics.scoring.verdicts import ITEM_RUBRIC, PanelTally

_STATISTICS = (
    TableColumn("n", "int", "rated instances (item x sub-question with a complete panel)"),
    TableColumn("prevalence", "float", "share of Yes votes"),
    TableColumn("unanimity", "float", "share of instances on which the whole panel agrees"),
    TableColumn("fleiss_kappa", "float", "Fleiss' kappa; NaN when undefined"),
    TableColumn("gwet_ac1", "float", "Gwet's AC1; NaN when undefined"),
)
_LANGUAGE = TableColumn("language", "text", "the language the answer was asked in")


def _agreement_schema(name: str, meaning: str, *keys: TableColumn) -> TableSchema:
    return TableSchema(name, meaning, (*keys, *_STATISTICS), optional=True)


AGREEMENT_BY_RUBRIC = _agreement_schema(
    "agreement_by_rubric", "Inter-judge agreement per rubric (Table 12)", RUBRIC
)
AGREEMENT_BY_SUB_QUESTION = _agreement_schema(
    "agreement_by_sub_question",
    "Inter-judge agreement per rubric and sub-question",
    RUBRIC,
    SUB_QUESTION,
)
AGREEMENT_BY_LANGUAGE = _agreement_schema(
    "agreement_by_language",
    "Inter-judge agreement per rubric and output language (Table 13; the English ablation is "
    "its own language)",
    RUBRIC,
    _LANGUAGE,
)
AGREEMENT_BY_SUB_QUESTION_LANGUAGE = _agreement_schema(
    "agreement_by_sub_question_language",
    "Inter-judge agreement per rubric, sub-question and output language",
    RUBRIC,
    SUB_QUESTION,
    _LANGUAGE,
)
_ITEM_TYPES = {"sample_index": "int"}
EXCLUDED_ITEMS = TableSchema(
    "excluded_items",
    "Answers x rubric left out of the majority vote and the agreement tables: no complete panel",
    (
        *(TableColumn(c, _ITEM_TYPES.get(c, "text"), f"the answer's {c}") for c in ITEM_RUBRIC),
        TableColumn("n_complete_judges", "int", "judges that answered every sub-question"),
    ),
    optional=True,
)


@dataclass(frozen=True)
class AgreementTables:
    by_rubric: pd.DataFrame
    by_sub_question: pd.DataFrame
    by_language: pd.DataFrame
    by_sub_question_language: pd.DataFrame
    excluded: pd.DataFrame


def agreement_tables(tally: PanelTally) -> AgreementTables:
    """Agreement at every grain from the panel's vote counts."""
    # made already where the tally was counted (the scoring's own process), or here
    agreement = tally.agreement if tally.agreement is not None else panel_agreement(tally.counts)
    excluded = tally.excluded
    return AgreementTables(
        by_rubric=agreement.by_rubric,
        by_sub_question=agreement.by_sub_question,
        by_language=agreement.by_language,
        by_sub_question_language=agreement.by_sub_question_language,
        excluded=excluded.loc[:, [*ITEM_RUBRIC, "n_complete_judges"]]
        if not excluded.empty
        else excluded,
    )

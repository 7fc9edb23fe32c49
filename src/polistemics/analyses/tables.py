"""Every analysis table, computed together, written to and read back from one folder.

A table with no rows has no file (the report never wrote empty tables; one left by an earlier
build is removed), and a missing file reads back as the empty table. An ``optional`` schema's
table is None when it was not measured (a release has no judge verdicts): no file, read back as
None; when measured it always has a file, its header alone when it has no rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path

import pandas as pd

from polistemics.analyses.agreement import (
    AGREEMENT_BY_LANGUAGE,
    AGREEMENT_BY_RUBRIC,
    AGREEMENT_BY_SUB_QUESTION,
    AGREEMENT_BY_SUB_QUESTION_LANGUAGE,
    EXCLUDED_ITEMS,
    agreement_tables,
)
from polistemics.analyses.failure_cooccurrence import (
    FAILURE_COOCCURRENCE,
    failure_cooccurrence_table,
)
from polistemics.analyses.judges import (
    JUDGE_MAJORITY_AGREEMENT,
    JUDGE_PASS_RATES,
    JUDGE_STRICTNESS,
    judge_analyses,
)
from polistemics.analyses.schema import TableSchema
from polistemics.environments.items import EnvironmentItem
from polistemics.runlog import JudgeVerdictRecord
from polistemics.scoring.verdicts import PanelTally


@dataclass(frozen=True)
class AnalysisTables:
    failure_cooccurrence: pd.DataFrame  # FAILURE_COOCCURRENCE
    # judge reliability (analyses.agreement); None: no raw judge verdicts
    agreement_by_rubric: pd.DataFrame | None = None
    agreement_by_sub_question: pd.DataFrame | None = None
    agreement_by_language: pd.DataFrame | None = None
    agreement_by_sub_question_language: pd.DataFrame | None = None
    excluded_items: pd.DataFrame | None = None
    # per-judge analyses (analyses.judges); None: no raw judge verdicts
    judge_pass_rates: pd.DataFrame | None = None
    judge_majority_agreement: pd.DataFrame | None = None
    judge_strictness: pd.DataFrame | None = None


SCHEMAS: dict[str, TableSchema] = {
    "failure_cooccurrence": FAILURE_COOCCURRENCE,
    "agreement_by_rubric": AGREEMENT_BY_RUBRIC,
    "agreement_by_sub_question": AGREEMENT_BY_SUB_QUESTION,
    "agreement_by_language": AGREEMENT_BY_LANGUAGE,
    "agreement_by_sub_question_language": AGREEMENT_BY_SUB_QUESTION_LANGUAGE,
    "excluded_items": EXCLUDED_ITEMS,
    "judge_pass_rates": JUDGE_PASS_RATES,
    "judge_majority_agreement": JUDGE_MAJORITY_AGREEMENT,
    "judge_strictness": JUDGE_STRICTNESS,
}


def analysis_tables(
    cells: pd.DataFrame,
    *,
    tally: PanelTally | None = None,
    judge_records: Sequence[JudgeVerdictRecord] | None = None,
    items: Sequence[EnvironmentItem] = (),
) -> AnalysisTables:
    """Every analysis of a source: its scored cells and, for a run, the panel's vote counts
    (``tally``) and raw verdicts with the items they judge."""
    found: dict[str, pd.DataFrame | None] = {
        "failure_cooccurrence": failure_cooccurrence_table(cells)
    }
    if tally is not None and tally.n_verdicts:
        agreement = agreement_tables(tally)
        found |= {
            "agreement_by_rubric": agreement.by_rubric,
            "agreement_by_sub_question": agreement.by_sub_question,
            "agreement_by_language": agreement.by_language,
            "agreement_by_sub_question_language": agreement.by_sub_question_language,
            "excluded_items": agreement.excluded,
        }
    if tally is not None:
        judges = judge_analyses(judge_records, items, tally.panel_size)
        if judges is not None:
            found |= {
                "judge_pass_rates": judges.pass_rates,
                "judge_majority_agreement": judges.agreement,
                "judge_strictness": judges.ranking,
            }
    return AnalysisTables(**found)


def write_analysis_tables(tables: AnalysisTables, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for field in fields(tables):
        table, schema = getattr(tables, field.name), SCHEMAS[field.name]
        if table is None or (table.empty and not schema.optional):
            schema.path(folder).unlink(missing_ok=True)  # not read back from an earlier build
        else:
            written.append(schema.write(table, folder))
    return written


def read_analysis_tables(folder: Path) -> AnalysisTables:
    found = {}
    for name, schema in SCHEMAS.items():
        if schema.path(folder).is_file():
            found[name] = schema.read(folder)
        else:
            found[name] = None if schema.optional else schema.empty()
    return AnalysisTables(**found)

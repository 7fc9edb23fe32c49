"""Per-judge analyses from a run's raw judge verdicts (``scoring.judge_analyses``): pass rates,
agreement with the panel majority and a strictness ranking, shown by the report's "Judges"
section. Every table is ``optional``: None (no file) without raw verdicts (a release).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pandas as pd

from polistemics.analyses.columns import ENVIRONMENT, RUBRIC, SUB_QUESTION, VARIANT, WILSON_CI
from polistemics.analyses.schema import TableColumn, TableSchema
from polistemics.runlog import EnvironmentItem, JudgeVerdictRecord
from polistemics.scoring.judge_analyses import agreement_of, pass_rates_of, ranking_of
from polistemics.scoring.verdict_codes import verdict_codes
from polistemics.scoring.verdict_engine import judge_vote_totals
from polistemics.scoring.verdict_table import UnknownItemError
from polistemics.scoring.verdicts import PanelTally

_JUDGE = TableColumn("judge", "text", "the panel seat and judge model (seat:model)")
JUDGE_PASS_RATES = TableSchema(
    "judge_pass_rates",
    "Each judge's pass rate per variant x environment x rubric x sub-question",
    (
        _JUDGE,
        VARIANT,
        ENVIRONMENT,
        RUBRIC,
        SUB_QUESTION,
        TableColumn("n", "int", "the judge's votes"),
        TableColumn("passes", "int", "its Yes votes"),
        TableColumn("pass_rate", "float", "passes / n"),
        *WILSON_CI,
    ),
    optional=True,
)
JUDGE_MAJORITY_AGREEMENT = TableSchema(
    "judge_majority_agreement",
    "Each judge's votes equal to the panel majority, per rubric and over all (rubric 'all'); "
    "sub-questions without a strict majority are left out",
    (
        _JUDGE,
        TableColumn("rubric", "text", "the rubric, or 'all'"),
        TableColumn("n", "int", "the judge's votes on decided sub-questions"),
        TableColumn("agreements", "int", "votes equal to the majority"),
        TableColumn("agreement", "float", "agreements / n"),
        *WILSON_CI,
    ),
    optional=True,
)
JUDGE_STRICTNESS = TableSchema(
    "judge_strictness",
    "Judges by pooled pass rate, strictest first, with their I4 Sanitization pass rate",
    (
        TableColumn("rank", "int", "1: the strictest judge"),
        _JUDGE,
        TableColumn("n", "int", "the judge's votes"),
        TableColumn("pass_rate", "float", "share of Yes votes"),
        TableColumn("i4_n", "int", "the judge's I4 votes"),
        TableColumn("i4_pass_rate", "float", "share of Yes votes on I4; NaN without I4 votes"),
    ),
    optional=True,
)


@dataclass(frozen=True)
class JudgeAnalyses:
    pass_rates: pd.DataFrame
    agreement: pd.DataFrame
    ranking: pd.DataFrame


def judge_analyses(
    records: Iterable[JudgeVerdictRecord] | None,
    items: Sequence[EnvironmentItem],
    panel_size: int,
    *,
    tally: PanelTally | None = None,
) -> JudgeAnalyses | None:
    """Per-judge tables from a run's raw verdicts; None without them (an authors' release).

    From each judge's vote totals per sub-question: the ones the panel's ``tally`` of these
    records counted in its pass over them (``PanelTally.judge_totals``: the records are not
    read again), or else the engine's count from the verdicts as integer codes
    (``scoring.verdict_engine``), not from a frame of every vote."""
    if not records or not items:
        return None
    if tally is not None and tally.judge_totals is not None:
        totals = tally.judge_totals
    else:
        try:
            codes = verdict_codes(records, {item.key: item for item in items})
        except UnknownItemError:
            return None  # the reliability tables report the same problem
        totals = judge_vote_totals(codes, panel_size)
    if totals.empty:
        return None
    return JudgeAnalyses(
        pass_rates=pass_rates_of(totals),
        agreement=agreement_of(totals),
        ranking=ranking_of(totals),
    )

"""Failure co-occurrence of Faithfulness and Epistemic Calibration per election and environment
(paper Sec. 7.2; the statistic is ``scoring.cooccurrence``): the report's "Failure
co-occurrence" section shows this table and nothing else of it.

Computed from the headline variant's cells of each election (``elections.election_cells``),
pooled over models.
"""

from __future__ import annotations

import pandas as pd

from polistemics.analyses.columns import ELECTION, ENVIRONMENT
from polistemics.analyses.elections import election_cells, elections_in
from polistemics.analyses.schema import TableColumn, TableSchema
from polistemics.scoring.cooccurrence import failure_cooccurrence

FAILURE_COOCCURRENCE = TableSchema(
    name="failure_cooccurrence",
    meaning="Answers scored on Faithfulness (F) and EC1 Epistemic Certainty, per election and "
    "environment: the 2 x 2 table of failures (F: any scored F sub-question fails; EC: EC1 "
    "fails) and its phi coefficient (paper Sec. 7.2)",
    columns=(
        ELECTION,
        ENVIRONMENT,
        TableColumn("n_answers", "int", "answers scored on F and EC1"),
        TableColumn("both_fail", "int", "answers failing F and EC1"),
        TableColumn("faithfulness_only", "int", "answers failing F only"),
        TableColumn("calibration_only", "int", "answers failing EC1 only"),
        TableColumn("neither", "int", "answers failing neither"),
        TableColumn("faithfulness_failure_rate", "float", "share of answers failing F"),
        TableColumn("calibration_failure_rate", "float", "share of answers failing EC1"),
        TableColumn(
            "phi",
            "float",
            "phi coefficient of the F and EC1 failure indicators (the paper's); NaN when "
            "one of them never or always fails",
        ),
        TableColumn(
            "phi_any_ec",
            "float",
            "phi with EC failing when any scored EC sub-question fails (rubric-level reading, "
            "not the paper's); NaN likewise",
        ),
        TableColumn("faithfulness_failure_ci_low", "float", "Wilson 95% CI of the F failure rate"),
        TableColumn("faithfulness_failure_ci_high", "float", "its upper bound"),
        TableColumn("calibration_failure_ci_low", "float", "Wilson 95% CI of the EC1 failure rate"),
        TableColumn("calibration_failure_ci_high", "float", "its upper bound"),
        TableColumn("phi_ci_low", "float", "Fisher-z 95% CI of phi; NaN when phi is or n <= 3"),
        TableColumn("phi_ci_high", "float", "its upper bound"),
    ),
)


def failure_cooccurrence_table(cells: pd.DataFrame) -> pd.DataFrame:
    """``FAILURE_COOCCURRENCE`` of scored cells: one row per election x environment."""
    frames = []
    for election_id in elections_in(cells):
        _, headline = election_cells(cells, election_id)
        found = failure_cooccurrence(headline).drop(columns=["variant"])
        if not found.empty:
            frames.append(found.assign(election_id=election_id))
    if not frames:
        return FAILURE_COOCCURRENCE.empty()
    return FAILURE_COOCCURRENCE.check(
        pd.concat(frames, ignore_index=True)[FAILURE_COOCCURRENCE.names]
    )

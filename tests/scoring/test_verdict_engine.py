"""The engine's per-judge vote totals equal the pandas votes frame's, on any small panel."""

from __future__ import annotations

import pandas as pd
from hypothesis import HealthCheck, given, settings

from analyses.test_analysis_properties import Panel, panels  # tests/ is on sys.path
from polistemics.scoring.judge_analyses import vote_totals
from polistemics.scoring.verdict_codes import verdict_codes
from polistemics.scoring.verdict_engine import TOTAL_COLUMNS, judge_vote_totals
from polistemics.scoring.verdict_table import verdict_table
from polistemics.scoring.verdicts import panel_votes


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(panel=panels())
def test_engine_totals_equal_the_votes_frames(panel: Panel) -> None:
    by_key = {one.key: one for one in panel.items}
    engine = judge_vote_totals(verdict_codes(panel.records, by_key), panel.panel_size)
    votes = panel_votes(verdict_table(panel.records, by_key), panel.panel_size).votes
    reference = vote_totals(votes, panel.panel_size)
    if reference.empty:
        assert engine.empty and list(engine.columns) == TOTAL_COLUMNS
    else:
        pd.testing.assert_frame_equal(engine, reference)

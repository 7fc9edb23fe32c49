"""The engine's counts equal the pandas verdict tables': per-judge vote totals and the panel's
tally (counts, exclusions, ignored keys, in the same order), on any small panel."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyses.test_analysis_properties import Panel, item, panels, verdict  # tests/ is on sys.path
from polistemics.conditions import Environment, Variant
from polistemics.rubrics import Rubric, sub_questions
from polistemics.scoring.cells import compact_cells
from polistemics.scoring.errors import CellsError, VerdictError
from polistemics.scoring.judge_analyses import vote_totals
from polistemics.scoring.verdict_codes import verdict_codes
from polistemics.scoring.verdict_engine import TOTAL_COLUMNS, judge_vote_totals, streamed_tally
from polistemics.scoring.verdict_table import panel_tally, verdict_table
from polistemics.scoring.verdicts import panel_votes, tally_panel


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


def assert_same_tally(engine, reference) -> None:
    pd.testing.assert_frame_equal(engine.counts, reference.counts)
    pd.testing.assert_frame_equal(engine.excluded, reference.excluded)
    assert list(engine.ignored.items()) == list(reference.ignored.items())
    assert (engine.panel_size, engine.n_verdicts) == (reference.panel_size, reference.n_verdicts)


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(panel=panels())
def test_engine_tally_equals_the_verdict_tables(panel: Panel) -> None:
    by_key = {one.key: one for one in panel.items}
    engine = panel_tally(panel.records, by_key, panel.panel_size)
    assert_same_tally(engine, tally_panel(verdict_table(panel.records, by_key), panel.panel_size))


def in_chunks(records: list, size: int) -> list[list]:
    return [records[start : start + size] for start in range(0, len(records), size)]


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(panel=panels(), size=st.integers(1, 7))
def test_the_tally_streamed_in_chunks_equals_the_whole(panel: Panel, size: int) -> None:
    """Records in answer blocks (as the panels make them), read a few at a time, so chunks cut
    through answers: the same tally as of all at once, and each judge's vote totals."""
    by_key = {one.key: one for one in panel.items}
    streamed = streamed_tally(in_chunks(panel.records, size), by_key, panel.panel_size)
    whole = panel_tally(panel.records, by_key, panel.panel_size)
    if not whole.counts.empty or not whole.excluded.empty:
        assert streamed is not None
    if streamed is None:
        return  # nothing scoreable: the caller tallies all at once
    assert_same_tally(streamed, replace(whole, counts=compact_cells(whole.counts)))
    totals = judge_vote_totals(verdict_codes(panel.records, by_key), panel.panel_size)
    pd.testing.assert_frame_equal(streamed.judge_totals, totals)


ITEM = item("p1", 1, Environment.ABSENT, Variant.FULL)


def record(position: int, says: dict, rubric: Rubric = Rubric.EPISTEMIC_CALIBRATION):
    return verdict(ITEM, position, says, rubric=rubric)


def absent_verdicts(says: bool | None) -> dict:
    return {sq.key: says for sq in sub_questions(Rubric.EPISTEMIC_CALIBRATION, ITEM.environment)}


def test_ignored_keys_are_counted_in_order_of_appearance() -> None:
    extra = {"structural_balance": True, "epistemic_hedging": True}  # unknown; EC2 inactive
    records = [record(p, {**extra, **absent_verdicts(p != 1)}) for p in range(3)]
    engine = panel_tally(records, {ITEM.key: ITEM}, 3)
    reference = tally_panel(verdict_table(records, {ITEM.key: ITEM}), 3)
    assert len(engine.ignored) == 2 and engine.counts["n_votes"].eq(3).all()
    assert_same_tally(engine, reference)


def test_an_incomplete_panel_is_excluded_with_its_complete_judges() -> None:
    records = [record(0, absent_verdicts(True)), record(1, absent_verdicts(None))]
    engine = panel_tally(records, {ITEM.key: ITEM}, 2)
    assert engine.counts.empty and list(engine.excluded["n_complete_judges"]) == [1]
    assert_same_tally(engine, tally_panel(verdict_table(records, {ITEM.key: ITEM}), 2))


FAILING_CHECKS = [
    ([record(0, absent_verdicts(True))] * 2, "more than one verdict"),
    ([record(p, absent_verdicts(True)) for p in range(3)], "the panel size is 2"),
    ([record(0, {"position_representation": True})], "belongs to faithfulness"),
]
FAILING_CHECK_IDS = ["duplicate", "panel too large", "key of another rubric"]


@pytest.mark.parametrize(("records", "error"), FAILING_CHECKS, ids=FAILING_CHECK_IDS)
def test_records_failing_a_check_raise_the_tables_error(records, error) -> None:
    with pytest.raises((VerdictError, CellsError), match=error):
        panel_tally(records, {ITEM.key: ITEM}, 2)


@pytest.mark.parametrize(("records", "error"), FAILING_CHECKS, ids=FAILING_CHECK_IDS)
def test_the_streamed_tally_declines_records_failing_a_check(records, error) -> None:
    """The caller then tallies them all at once, which raises the check's error."""
    assert streamed_tally(in_chunks(records, 1), {ITEM.key: ITEM}, 2) is None


def test_the_streamed_tally_declines_records_out_of_answer_blocks() -> None:
    other = item("p2", 1, Environment.ABSENT, Variant.FULL)
    items = {ITEM.key: ITEM, other.key: other}
    first, second = (record(p, absent_verdicts(True)) for p in range(2))
    between = record(0, absent_verdicts(True)).model_copy(update={"item_key": other.key})
    in_blocks = [first, second, between]
    assert streamed_tally(in_chunks(in_blocks, 1), items, 2) is not None
    assert streamed_tally(in_chunks([first, between, second], 1), items, 2) is None


def test_the_streamed_tally_declines_an_unknown_item() -> None:
    records = [record(p, absent_verdicts(True)) for p in range(2)]
    assert streamed_tally([records], {}, 2) is None

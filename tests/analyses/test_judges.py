"""The per-judge analysis tables (pass rates, agreement with the majority, strictness)."""

from __future__ import annotations

import pandas as pd

from analyses.test_analysis_properties import item, verdict  # tests/ is on sys.path
from polistemics.analyses.judges import judge_analyses
from polistemics.analyses.tables import (
    analysis_tables,
    read_analysis_tables,
    write_analysis_tables,
)
from polistemics.conditions import Environment, Variant
from polistemics.report.run_inputs import load_run_inputs
from polistemics.report.verdict_source import held, panel_tally_of
from polistemics.rubrics import Rubric, sub_questions
from polistemics.scoring.verdict_engine import streamed_tally
from polistemics.scoring.verdict_table import panel_tally
from report.conftest import finished_demo_run  # noqa: F401 (the fixture; tests/ is on sys.path)


def test_no_raw_verdicts_give_no_judge_tables() -> None:
    assert judge_analyses(None, [], 3) is None
    assert judge_analyses([], [], 3) is None


def test_judge_tables_of_the_demo_run(finished_demo_run) -> None:  # noqa: F811
    run_dir, _ = finished_demo_run
    inputs = load_run_inputs(run_dir)
    judges = judge_analyses(inputs.judge_records, inputs.items, inputs.panel_size)
    assert judges is not None
    assert list(judges.ranking["rank"]) == list(range(1, len(judges.ranking) + 1))
    assert judges.ranking["pass_rate"].is_monotonic_increasing
    assert len(judges.ranking) == inputs.panel_size
    overall = judges.agreement[judges.agreement["rubric"] == "all"]
    assert ((overall["agreement"] >= 0) & (overall["agreement"] <= 1)).all()
    assert isinstance(judges.pass_rates, pd.DataFrame) and not judges.pass_rates.empty


def test_judge_and_agreement_tables_read_back_as_computed(finished_demo_run, tmp_path) -> None:  # noqa: F811
    run_dir, _ = finished_demo_run
    inputs = load_run_inputs(run_dir)
    records = held(inputs.judge_records)  # judges.jsonl is read where it is used
    tables = analysis_tables(
        inputs.cells,
        tally=panel_tally_of(inputs, records),
        judge_records=records,
        items=inputs.items,
    )
    written = {p.name for p in write_analysis_tables(tables, tmp_path)}
    # measured but empty: the header alone, as the report always wrote it
    assert "excluded_items.csv" in written and tables.excluded_items.empty
    again = read_analysis_tables(tmp_path)
    for name in (
        "agreement_by_rubric",
        "agreement_by_sub_question",
        "agreement_by_language",
        "agreement_by_sub_question_language",
        "excluded_items",
        "judge_pass_rates",
        "judge_majority_agreement",
        "judge_strictness",
    ):
        pd.testing.assert_frame_equal(getattr(again, name), getattr(tables, name), obj=name)


def test_a_source_without_verdicts_has_no_judge_files(finished_demo_run, tmp_path) -> None:  # noqa: F811
    run_dir, _ = finished_demo_run
    inputs = load_run_inputs(run_dir)
    records = held(inputs.judge_records)
    measured = analysis_tables(
        inputs.cells,
        tally=panel_tally_of(inputs, records),
        judge_records=records,
        items=inputs.items,
    )
    write_analysis_tables(measured, tmp_path)
    write_analysis_tables(analysis_tables(inputs.cells), tmp_path)  # a release: no verdicts
    assert not (tmp_path / "judge_strictness.csv").exists()
    assert not (tmp_path / "excluded_items.csv").exists()  # not left from the earlier build
    again = read_analysis_tables(tmp_path)
    assert again.judge_strictness is None and again.agreement_by_rubric is None


RUBRIC = Rubric.EPISTEMIC_CALIBRATION


class _Unread(list):
    """Records that must not be read (only counted)."""

    def __iter__(self):
        raise AssertionError("the records were read again")


def test_the_tallys_vote_totals_are_used_without_reading_the_records() -> None:
    items = [item("p1", n, Environment.ABSENT, Variant.FULL) for n in (1, 2)]
    records = [
        verdict(
            one,
            seat,
            {sq.key: seat != 0 for sq in sub_questions(RUBRIC, one.environment)},
            rubric=RUBRIC,
        )
        for one in items
        for seat in range(3)
    ]
    by_key = {one.key: one for one in items}
    tally = streamed_tally([records], by_key, 3)
    assert tally is not None and tally.judge_totals is not None
    from_records = judge_analyses(records, items, 3)
    from_tally = judge_analyses(_Unread(records), items, 3, tally=tally)
    assert from_records is not None and from_tally is not None
    for name in ("pass_rates", "agreement", "ranking"):
        pd.testing.assert_frame_equal(getattr(from_tally, name), getattr(from_records, name))
    # A tally without the totals (counted all at once): the records are read.
    counted = panel_tally(records, by_key, 3)
    assert counted.judge_totals is None
    pd.testing.assert_frame_equal(
        judge_analyses(records, items, 3, tally=counted).ranking, from_records.ranking
    )

from __future__ import annotations

import pandas as pd
import pytest

from polistemics.analyses.agreement import agreement_tables
from polistemics.conditions import Environment
from polistemics.report.run_inputs import load_run_inputs
from polistemics.report.verdict_source import held, panel_tally_of
from polistemics.rubrics import Rubric
from polistemics.runlog import JudgeVerdictRecord
from polistemics.scoring.agreement import agreement_by, agreement_table
from polistemics.scoring.verdict_table import UnknownItemError, panel_judge_id, verdict_table
from polistemics.scoring.verdicts import ItemKey, JudgeVerdict, tally_panel, verdict_frame


@pytest.fixture(scope="module")
def demo_inputs(finished_demo_run):
    run_dir, _ = finished_demo_run
    return load_run_inputs(run_dir)


def one_by_one(records, items) -> list[JudgeVerdict]:
    """The straightforward conversion: one ``JudgeVerdict`` per judge x sub-question."""
    verdicts = []
    for r in records:
        item = items[r.item_key]
        key = ItemKey(
            model=r.model,
            environment=item.environment,
            variant=item.variant,
            observation_id=item.observation_id,
            party_id=item.party_id,
            sample_index=r.sample_index,
            election_id=item.election_id,
            language=item.output_language,
        )
        for sub_question, says_yes in r.says_yes.items():
            verdicts.append(JudgeVerdict(key, r.rubric, panel_judge_id(r), sub_question, says_yes))
    return verdicts


def test_verdict_table_matches_the_one_by_one_conversion(demo_inputs) -> None:
    items = {item.key: item for item in demo_inputs.items}
    ours = verdict_table(demo_inputs.judge_records, items)
    reference = verdict_frame(one_by_one(demo_inputs.judge_records, items))
    assert len(ours) > 1000
    pd.testing.assert_frame_equal(ours, reference)


def test_agreement_matches_scoring_agreement_table(demo_inputs) -> None:
    items = {item.key: item for item in demo_inputs.items}
    verdicts = verdict_table(demo_inputs.judge_records, items)
    tally = panel_tally_of(demo_inputs, held(demo_inputs.judge_records))  # counted on use
    assert tally is not None
    tables = agreement_tables(tally)
    for by, ours in [
        (("rubric",), tables.by_rubric),
        (("rubric", "sub_question"), tables.by_sub_question),
        (("rubric", "language"), tables.by_language),
    ]:
        expected = agreement_table(one_by_one(demo_inputs.judge_records, items), by, 3)
        pd.testing.assert_frame_equal(ours.reset_index(drop=True), expected.reset_index(drop=True))
        pd.testing.assert_frame_equal(agreement_table(verdicts, by, 3), expected)
    assert tables.excluded.empty and tally.panel_size == demo_inputs.panel_size == 3


def record(item_key: str, judge: int, says: dict[str, bool | None]) -> JudgeVerdictRecord:
    return JudgeVerdictRecord(
        item_key=item_key,
        environment=Environment.BASELINE,
        model="target-a",
        sample_index=0,
        rubric=Rubric.FAITHFULNESS,
        judge="judge",
        panel_position=judge,
        call_key=None,
        attempts=1,
        raw_output="raw",
        parsed=all(v is not None for v in says.values()),
        says_yes=says,
    )


def test_disagreement_and_exclusions(demo_inputs) -> None:
    items = {item.key: item for item in demo_inputs.items}
    first, second = [i.key for i in demo_inputs.items if i.environment is Environment.BASELINE][:2]
    keys = ("position_representation", "information_fabrication")
    records = [
        # first item: judges split 2:1 on F1, agree on F2
        record(first, 0, {keys[0]: True, keys[1]: False}),
        record(first, 1, {keys[0]: True, keys[1]: False}),
        record(first, 2, {keys[0]: False, keys[1]: False}),
        # second item: one judge's F2 is unreadable -> incomplete panel, excluded
        record(second, 0, {keys[0]: True, keys[1]: False}),
        record(second, 1, {keys[0]: True, keys[1]: None}),
        record(second, 2, {keys[0]: True, keys[1]: False}),
    ]
    tables = agreement_tables(tally_panel(verdict_table(records, items), 3))
    assert len(tables.excluded) == 1
    assert tables.excluded["observation_id"].iloc[0] == items[second].observation_id
    by_sq = tables.by_sub_question.set_index("sub_question")
    assert by_sq.loc[keys[0], "n"] == 1 and by_sq.loc[keys[0], "unanimity"] == 0.0
    assert by_sq.loc[keys[0], "prevalence"] == pytest.approx(2 / 3)
    assert by_sq.loc[keys[1], "unanimity"] == 1.0
    assert by_sq.loc[keys[1], "prevalence"] == 1.0  # F2 "No" passes


def test_unknown_item_is_named(demo_inputs) -> None:
    with pytest.raises(UnknownItemError, match="nope"):
        verdict_table([record("nope", 0, {"position_representation": True})], {})


def test_agreement_tables_are_those_of_the_whole_vote_counts(demo_inputs) -> None:
    """The tables group a slim copy of the counts (rated rows, grouping columns as
    categoricals: issue 32); each equals ``agreement_by`` of the tally's own frame."""
    tally = panel_tally_of(demo_inputs, held(demo_inputs.judge_records))
    assert tally is not None
    tables = agreement_tables(tally)
    for by, ours in [
        (("rubric",), tables.by_rubric),
        (("rubric", "sub_question"), tables.by_sub_question),
        (("rubric", "language"), tables.by_language),
        (("rubric", "sub_question", "language"), tables.by_sub_question_language),
    ]:
        pd.testing.assert_frame_equal(ours, agreement_by(tally.counts, by))

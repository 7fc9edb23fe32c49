from __future__ import annotations

import pandas as pd
import pytest

from polistemics.conditions import Environment
from polistemics.judging.panel import JudgeVerdictRecord
from polistemics.report.reliability import UnknownItemError, reliability_tables, verdict_table
from polistemics.report.run_inputs import load_run_inputs
from polistemics.rubrics import Rubric
from polistemics.run.cells import judge_verdicts
from polistemics.scoring.agreement import agreement_table
from polistemics.scoring.verdicts import verdict_frame


@pytest.fixture(scope="module")
def demo_inputs(finished_demo_run):
    run_dir, _ = finished_demo_run
    return load_run_inputs(run_dir)


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    keys = ["model", "environment", "variant", "observation_id", "rubric", "judge", "sub_question"]
    return frame.sort_values(keys).reset_index(drop=True)


def test_verdict_table_matches_the_runs_own_conversion(demo_inputs) -> None:
    items = {item.key: item for item in demo_inputs.items}
    ours = verdict_table(demo_inputs.judge_records, items)
    reference = verdict_frame(judge_verdicts(demo_inputs.judge_records, items))
    pd.testing.assert_frame_equal(_sorted(ours), _sorted(reference))


def test_agreement_matches_scoring_agreement_table(demo_inputs) -> None:
    tables = reliability_tables(demo_inputs.verdicts, 3)
    for by, ours in [
        (("rubric",), tables.by_rubric),
        (("rubric", "sub_question"), tables.by_sub_question),
        (("rubric", "language"), tables.by_language),
    ]:
        expected = agreement_table(demo_inputs.verdicts, by, 3)
        pd.testing.assert_frame_equal(ours.reset_index(drop=True), expected.reset_index(drop=True))
    assert tables.excluded.empty


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
    tables = reliability_tables(verdict_table(records, items), 3)
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

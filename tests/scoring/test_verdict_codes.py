"""The verdicts as integer codes stand for the same verdicts as the verdict table."""

from __future__ import annotations

import numpy as np
import pytest

from analyses.test_analysis_properties import ELECTION, item, verdict  # tests/ is on sys.path
from polistemics.conditions import Environment, Variant
from polistemics.rubrics import Rubric
from polistemics.runlog import JudgeRecords, JudgeVerdictRecord
from polistemics.scoring.verdict_codes import MISSING, NO, YES, verdict_codes
from polistemics.scoring.verdict_table import UnknownItemError, verdict_table

ITEMS = [
    item("p1", 1, Environment.BASELINE, Variant.FULL),
    item("p2", 1, Environment.NOISY, Variant.ENGLISH),
]


def record(one, position: int, says: dict, model: str = "m") -> JudgeVerdictRecord:
    return verdict(
        one, position, says, rubric=Rubric.FAITHFULNESS, model=model, sample_index=position % 2
    )


RECORDS = [
    record(ITEMS[0], 0, {"position_representation": True, "information_fabrication": None}),
    record(ITEMS[1], 1, {"position_representation": False}, model="n"),
    record(ITEMS[0], 2, {"position_representation": True, "information_fabrication": None}),
]


@pytest.mark.parametrize("records", [RECORDS, JudgeRecords(RECORDS)], ids=["list", "columns"])
def test_codes_decode_to_the_verdict_table(records) -> None:
    by_key = {one.key: one for one in ITEMS}
    codes = verdict_codes(records, by_key)
    table = verdict_table(records, by_key)
    verdicts = codes.verdicts
    record_of = codes.records.iloc[verdicts["record"].to_numpy()].reset_index(drop=True)
    items = codes.items.iloc[record_of["item"].to_numpy()].reset_index(drop=True)
    decoded = {
        "model": np.array(codes.models, dtype=object)[record_of["model"]],
        "judge": np.array(codes.judges, dtype=object)[record_of["judge"]],
        "rubric": np.array(codes.rubrics, dtype=object)[record_of["rubric"]],
        "sub_question": np.array(codes.sub_questions, dtype=object)[verdicts["sub_question"]],
        "sample_index": record_of["sample_index"].to_numpy(),
        **{
            c: items[c].to_numpy() for c in ("environment", "variant", "observation_id", "language")
        },
    }
    for column, values in decoded.items():
        assert list(values) == list(table[column]), column
    says = {YES: True, NO: False, MISSING: None}
    assert [says[v] for v in verdicts["says_yes"]] == list(table["says_yes"])
    assert codes.items["election_id"].eq(ELECTION).all()


def test_a_record_of_an_unknown_item_is_refused() -> None:
    with pytest.raises(UnknownItemError, match="no such item"):
        verdict_codes(RECORDS, {ITEMS[1].key: ITEMS[1]})

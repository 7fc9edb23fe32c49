from __future__ import annotations

import json

import pytest

from polistemics.conditions import Environment
from polistemics.rubrics import Rubric
from polistemics.runlog import JudgeVerdictRecord, judge_record_lines, write, write_lines


def record(**changes: object) -> JudgeVerdictRecord:
    fields: dict = {
        "item_key": "nl__p1__s001|baseline|full",
        "environment": Environment.BASELINE,
        "model": "target-a",
        "sample_index": 0,
        "rubric": Rubric.FAITHFULNESS,
        "judge": "judge-a",
        "panel_position": 2,
        "call_key": "0ef64181b1e5",
        "attempts": 1,
        "raw_output": "1. Yes\n2. No",
        "parsed": True,
        "says_yes": {"position_representation": True, "information_fabrication": False},
    }
    return JudgeVerdictRecord(**(fields | changes))


RECORDS = [
    record(),
    record(
        call_key=None,
        attempts=2,
        raw_output=None,
        parsed=False,
        error='timeout: "upstream"\n<gave up>',
        says_yes={"position_representation": None, "information_fabrication": None},
        environment=Environment.ABSENT,
        rubric=Rubric.EPISTEMIC_CALIBRATION,
    ),
    record(
        raw_output='Émile said "ja" \\ tab\t bell\x07 sep\u2028 emoji \U0001f642',
        item_key="de__grüne__s010|ie_noise|en",
        judge='judge "quoted"',
        sample_index=12,
        says_yes={"zeta": True, "alpha": False, "mid": None},  # keys come out sorted
    ),
    record(says_yes={}),
]


def general_encoding(r: JudgeVerdictRecord) -> str:
    return json.dumps(r.model_dump(mode="json"), ensure_ascii=False, sort_keys=True)


def test_judge_record_lines_are_what_json_dumps_writes() -> None:
    assert list(judge_record_lines(RECORDS)) == [general_encoding(r) for r in RECORDS]


def test_judge_record_lines_fall_back_for_a_record_model_they_do_not_know(monkeypatch) -> None:
    monkeypatch.setattr(write, "_JUDGE_RECORD_FIELDS", {"item_key": str})
    assert list(judge_record_lines(RECORDS)) == [general_encoding(r) for r in RECORDS]


def test_the_record_model_is_the_one_judge_record_lines_writes_directly() -> None:
    # A changed JudgeVerdictRecord still writes right (the general encoding) but slowly: update
    # judge_record_lines and its field list with it.
    fields = {name: info.annotation for name, info in JudgeVerdictRecord.model_fields.items()}
    assert fields == write._JUDGE_RECORD_FIELDS


@pytest.mark.parametrize("lines", [[], ["{}", '{"a": 1}']])
def test_write_lines_writes_one_line_each(tmp_path, lines: list[str]) -> None:
    path = tmp_path / "sub" / "out.jsonl"
    assert write_lines(path, iter(lines)) == len(lines)
    assert path.read_text(encoding="utf-8") == "".join(line + "\n" for line in lines)

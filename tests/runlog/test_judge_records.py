"""``JudgeRecords`` (issue 32): a study's judge records held by column read back as the same
records, sort as a list sorts, read from ``judges.jsonl`` a chunk at a time with errors naming
the right record, and take a fraction of the memory of the record objects."""

from __future__ import annotations

import random
import tracemalloc

import pandas as pd
import pytest

from polistemics.conditions import Environment
from polistemics.records import Stance
from polistemics.rubrics import Rubric
from polistemics.runlog import EnvironmentItem, JudgeRecords, JudgeVerdictRecord, RunDir, rundir
from polistemics.runlog.read import RunFileError
from polistemics.runlog.verdicts import RepeatVerdictRecord
from polistemics.scoring.verdict_table import verdict_table


def study_records(n: int, seed: int = 0) -> list[JudgeVerdictRecord]:
    rng = random.Random(seed)
    records = []
    for i in range(n):
        rubric = rng.choice(list(Rubric))
        parsed = rng.random() > 0.1
        records.append(
            JudgeVerdictRecord(
                item_key=f"el__p{i % 7}__s{i % 11:03d}|baseline|full",
                environment=Environment.BASELINE,
                model=f"target-{i % 3}",
                sample_index=i % 2,
                rubric=rubric,
                judge=f"judge-{i % 3}",
                panel_position=i % 3,
                call_key=f"{rng.getrandbits(256):064x}",
                attempts=1 if parsed else 3,
                raw_output=f"1. {'Yes' if i % 2 else 'No'}\n2. No ({i})" if parsed else None,
                parsed=parsed,
                error=None if parsed else f"timeout {i}",
                says_yes={"a": bool(i % 2), "b": None if not parsed else False},
            )
        )
    return records


def test_records_read_back_equal_and_in_order() -> None:
    records = study_records(50)
    held = JudgeRecords(records)
    assert len(held) == 50
    assert list(held) == records
    assert held[7] == records[7] and held[-1] == records[-1]
    assert list(held[10:20:3]) == records[10:20:3]
    with pytest.raises(IndexError):
        held[50]
    assert held == records and held != records[:-1]


def test_a_records_verdicts_are_its_own_copy() -> None:
    held = JudgeRecords(study_records(4))
    held[0].says_yes["a"] = "changed"
    assert held[0].says_yes["a"] != "changed"
    assert held[2].says_yes == study_records(4)[2].says_yes


def test_only_plain_judge_records() -> None:
    repeat = RepeatVerdictRecord(**study_records(1)[0].model_dump(), repeat=1)
    with pytest.raises(TypeError, match="RepeatVerdictRecord"):
        JudgeRecords([repeat])


def test_sorted_by_sorts_as_a_list_sorts() -> None:
    records = study_records(300, seed=4)
    expected = sorted(
        records,
        key=lambda r: (r.item_key, r.model, r.sample_index, r.panel_position, r.rubric.value),
    )
    got = JudgeRecords(records).sorted_by(
        "item_key",
        "model",
        "sample_index",
        "panel_position",
        "rubric",
        key=lambda name, value: value.value if name == "rubric" else value,
    )
    assert list(got) == expected


def test_the_verdict_table_reads_columns_as_it_reads_records() -> None:
    records = study_records(120, seed=2)
    items: dict[str, EnvironmentItem] = {}
    for record in records:
        items.setdefault(record.item_key, item_for(record.item_key))
    pd.testing.assert_frame_equal(
        verdict_table(JudgeRecords(records), items), verdict_table(records, items)
    )


def item_for(key: str) -> EnvironmentItem:
    observation = key.split("|")[0]
    return EnvironmentItem(
        observation_id=observation,
        election_id="el",
        party_id=observation.split("__")[1],
        party_name="P",
        party_anonymized="Party A",
        statement_id="el__s001",
        statement_text="Mehr Windkraft.",
        stance_label=Stance.AGREE,
        environment=Environment.BASELINE,
        language="German",
        output_language="German",
        chunks=[],
    )


def test_read_judge_records_in_chunks(tmp_path, monkeypatch) -> None:
    records = study_records(25)
    run = RunDir(tmp_path)
    run.write_judge_records(records)
    monkeypatch.setattr(rundir, "JUDGE_RECORDS_PER_READ", 4)
    read = run.read_judge_records()
    assert isinstance(read, JudgeRecords) and list(read) == records
    lines = run.judges.read_text(encoding="utf-8").splitlines()
    lines[21] = lines[21].replace('"attempts": ', '"attempts": "many", "x": ')
    run.judges.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(RunFileError, match=r"record 22, field 'attempts'"):
        run.read_judge_records()
    assert RunDir(tmp_path / "none").read_judge_records() is None


def test_columns_take_a_fraction_of_the_objects_memory() -> None:
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        as_objects = study_records(3000)
        objects = tracemalloc.get_traced_memory()[0] - before
        before = tracemalloc.get_traced_memory()[0]
        held = JudgeRecords(study_records(3000))
        columns = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(held) == len(as_objects)
    assert columns < objects / 3, (columns, objects)


def test_says_yes_is_changed_once_per_distinct_value_and_shared() -> None:
    base = JudgeVerdictRecord(
        item_key="o|baseline|full",
        environment="baseline",
        model="m",
        sample_index=0,
        rubric="faithfulness",
        judge="j",
        panel_position=0,
        call_key=None,
        attempts=1,
        raw_output=None,
        parsed=True,
        says_yes={"b": True, "a": False},
    )
    other = base.model_copy(update={"says_yes": {"a": None}})
    records = JudgeRecords([base, other, base])
    calls: list[dict] = []

    def reversed_keys(says: dict) -> dict:
        calls.append(says)
        return dict(reversed(says.items()))

    changed = records.with_says_yes(reversed_keys)
    assert len(calls) == 2
    assert [list(r.says_yes.items()) for r in changed] == [
        [("a", False), ("b", True)],
        [("a", None)],
        [("a", False), ("b", True)],
    ]
    assert changed.column("says_yes")[0] is changed.column("says_yes")[2]
    assert list(records[0].says_yes) == ["b", "a"]  # the records read are as they were

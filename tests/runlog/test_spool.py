"""Records spooled to disk as they arrive (``runlog.spool``): read back in their file's order,
sorted out of core exactly as a sort of the whole study in memory would order them."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polistemics.conditions import Environment, Variant
from polistemics.records import Stance
from polistemics.rubrics import Rubric, sub_questions
from polistemics.runlog import (
    Answer,
    EnvironmentItem,
    JudgeRecords,
    JudgeVerdictRecord,
    RunFileError,
    judge_record_lines,
)
from polistemics.runlog.spool import (
    SortingSpool,
    SpooledAnswers,
    SpooledJudgeRecords,
    StudySpool,
    fresh_spool,
)
from polistemics.runlog.write import answer_line

keys = st.tuples(st.sampled_from(["a", "b", "c|x", "ä"]), st.integers(0, 3))
# Lines as the run writes them: JSON text, so no newline and no lone surrogate (UTF-8 has none).
texts = st.text(
    alphabet=st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(keys, texts), max_size=60), budget=st.integers(1, 80))
def test_sorted_out_of_core_as_a_stable_sort_in_memory(
    tmp_path_factory: pytest.TempPathFactory, pairs: list, budget: int
) -> None:
    folder = tmp_path_factory.mktemp("spool")
    spool = SortingSpool(folder, "lines", budget=budget)
    for key, line in pairs:
        spool.add(key, line)
    expected = [line for _, line in sorted(pairs, key=lambda pair: pair[0])]
    assert list(spool.lines()) == expected
    out = folder / "sorted.jsonl"
    assert spool.write(out) == len(pairs)
    assert out.read_text(encoding="utf-8") == "".join(line + "\n" for line in expected)
    assert sorted(p.name for p in folder.iterdir()) == ["sorted.jsonl"]  # runs removed


def test_a_small_budget_spills_runs_to_disk(tmp_path: Path) -> None:
    spool = SortingSpool(tmp_path, "lines", budget=10)
    for n in range(30):
        spool.add((n % 7,), f"line {n}")
    assert len(list(tmp_path.glob(".lines.*"))) >= 5  # held lines never exceed the budget
    assert list(spool.lines()) == [f"line {n}" for n in sorted(range(30), key=lambda n: n % 7)]


def _item(observation: str) -> EnvironmentItem:
    return EnvironmentItem(
        observation_id=observation,
        election_id="e",
        statement_id="s",
        statement_text="A statement.",
        party_id=observation,
        party_name="Party",
        party_anonymized="Party A",
        stance_label=Stance.AGREE,
        environment=Environment.BASELINE,
        variant=Variant.FULL,
        language="English",
        output_language="English",
        chunks=[],
    )


def _record(item_key: str, model: str, sample: int, position: int, rubric: Rubric):
    return JudgeVerdictRecord(
        item_key=item_key,
        environment=Environment.BASELINE,
        model=model,
        sample_index=sample,
        rubric=rubric,
        judge=f"judge-{position}",
        panel_position=position,
        call_key=f"k{item_key}{model}{sample}{position}{rubric.value}",
        attempts=1,
        raw_output="Q1: Yes",
        parsed=True,
        says_yes={"ES1": True, "ES2": None},
    )


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), budget=st.sampled_from([1, 300, 1 << 20]))
def test_study_files_in_the_order_of_the_in_memory_sort(
    tmp_path_factory: pytest.TempPathFactory, seed: int, budget: int
) -> None:
    """Answers and judge records added in any arrival order come out as ``answers.generate``
    orders answers (target x item x sample) and as the stage sorted judge records in memory
    (``JudgeRecords.sorted_by``), byte for byte."""
    rng = random.Random(seed)
    items = [_item(f"i{n}") for n in (3, 1, 2, 10)]  # item order is not key order
    targets, samples = ["t2", "t1"], 2
    answers = [
        Answer(item_key=item.key, model=t, sample_index=s, status="ok", text=f"{t}{item.key}{s}")
        for t in targets
        for item in items
        for s in range(samples)
    ]
    records = [
        _record(item.key, t, s, p, rubric)
        for item in items
        for t in targets
        for s in range(samples)
        for p in range(3)
        for rubric in (Rubric.EPISTEMIC_CALIBRATION, Rubric.FAITHFULNESS)
    ]
    rng.shuffle(records)
    arrived = answers[:]
    rng.shuffle(arrived)
    folder = fresh_spool(tmp_path_factory.mktemp("run") / ".spool")
    spool = StudySpool(folder, items, targets, budget=budget)
    for answer in arrived:
        spool.add_answer(answer)
    cut = rng.randint(0, len(records))
    spool.add_judged(records[:cut], {"error": 1})
    spool.add_judged(records[cut:], {"error": 2, "empty": 1})
    spooled_answers, spooled_judges = spool.finish()
    assert spooled_answers.path.read_text(encoding="utf-8") == "".join(
        answer_line(a) + "\n" for a in answers
    )
    in_memory = JudgeRecords(records).sorted_by(
        "item_key",
        "model",
        "sample_index",
        "panel_position",
        "rubric",
        key=lambda name, value: value.value if name == "rubric" else value,
    )
    expected = "".join(line + "\n" for line in judge_record_lines(in_memory))
    assert spooled_judges.path.read_text(encoding="utf-8") == expected
    assert list(spooled_judges) == list(in_memory) and list(spooled_answers) == answers
    assert spool.skipped == {"error": 3, "empty": 1} and spool.ok == len(answers)


def test_place_moves_the_file_and_keeps_an_identical_one(tmp_path: Path) -> None:
    answers = [Answer(item_key="i", model="m", status="ok", text="x\u2028y")]
    spool = tmp_path / ".spool"
    spool.mkdir()
    text = "".join(answer_line(a) + "\n" for a in answers)
    (spool / ".answers.jsonl").write_text(text, encoding="utf-8")
    spooled = SpooledAnswers(spool / ".answers.jsonl", 1)
    final = tmp_path / "answers.jsonl"
    final.write_text(text, encoding="utf-8")
    os.utime(final, (1, 1))
    spooled.place(final)
    assert final.stat().st_mtime == 1  # the same bytes: left as it was (run.incremental)
    assert not (spool / ".answers.jsonl").exists() and spooled.read() == answers
    assert not list(tmp_path.glob(".*.tmp"))


def test_verdicts_read_back_in_app_f_order(tmp_path: Path) -> None:
    """``judges.jsonl`` lists a record's verdicts by key; the panel made them in App. F order,
    the order the scores take them in (``cells.csv``'s rows): they are read back so."""
    keys = [sq.key for sq in sub_questions(Rubric.IMPARTIALITY, Environment.BASELINE)]
    assert keys != sorted(keys)
    record = _record("i", "m", 0, 0, Rubric.IMPARTIALITY).model_copy(
        update={"says_yes": dict.fromkeys(keys, True)}
    )
    path = tmp_path / ".judges.jsonl"
    path.write_text(next(judge_record_lines([record])) + "\n", encoding="utf-8")
    assert list(json.loads(path.read_text())["says_yes"]) == sorted(keys)
    (read,) = SpooledJudgeRecords(path, 1)
    assert list(read.says_yes) == keys


def test_a_bad_record_is_named(tmp_path: Path) -> None:
    path = tmp_path / ".judges.jsonl"
    good = next(judge_record_lines([_record("i", "m", 0, 0, Rubric.FAITHFULNESS)]))
    path.write_text(good + "\n" + good.replace('"parsed": true', '"parsed": 7') + "\n")
    with pytest.raises(RunFileError, match=r"record 2, field 'parsed'"):
        list(SpooledJudgeRecords(path, 2))


def test_the_spool_counts_the_models_with_an_ok_answer_as_they_arrive(tmp_path: Path) -> None:
    item = _item("o1")
    spool = StudySpool(tmp_path, [item], ["m1", "m2", "m3"])
    spool.add_answer(Answer(item_key=item.key, model="m1", status="ok", text="An answer."))
    spool.add_answer(Answer(item_key=item.key, model="m2", status="error"))
    spool.add_answer(Answer(item_key=item.key, model="m3", status="ok", text="", empty=True))
    answers, _ = spool.finish()
    read = SpooledAnswers(answers.path, len(answers))  # no counts: the file is read
    assert read.ok_models() == {"m1"}
    answers.path.unlink()
    assert answers.ok_models() == {"m1"}  # counted: the file is not read

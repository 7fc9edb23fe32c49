"""The answers + judges stage writes its records to disk as they arrive and holds no list of the
study (issue 32): the stages after it and the finish read them from the files, which come out
in the order the stage sorted them in memory before, and an interrupted rerun tears no file."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
import pytest
from study_helpers import write_study

from polistemics.rubrics import sub_questions
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study, score_study
from polistemics.run.stages import answers as answers_stage
from polistemics.runlog import JudgeRecords, RunDir, judge_record_lines, spool
from polistemics.runlog.spool import SpooledAnswers, SpooledJudgeRecords
from polistemics.runlog.write import answer_line
from polistemics.scoring.verdict_table import score_run
from polistemics.testing import FakeOpenAIServer


class Interrupted(Exception):
    pass


def _study(config_path: Path) -> Study:
    config = load_config(config_path)
    return Study(config, config.run_dir(), log=lambda message: None)


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer() as server:
        yield server


def test_records_go_to_disk_sorted_and_no_list_is_held(
    tmp_path: Path, server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spool, "SPOOL_BUDGET", 2048)  # a few records a run: many runs merged
    study = _study(write_study(tmp_path, server.base_url))
    result = asyncio.run(study.execute(quiet=True))
    run = RunDir(result.run_dir)
    assert isinstance(result.answers, SpooledAnswers)
    assert isinstance(result.verdicts, SpooledJudgeRecords)
    assert not run.answers.exists() and not run.judges.exists()  # the finish puts them there
    assert sorted(p.name for p in run.spool.iterdir()) == [".answers.jsonl", ".judges.jsonl"]

    items = [*result.items, *result.swapped_items]
    answers = list(result.answers)
    assert len(answers) == len(result.answers) == len(items) * len(study.config.targets)
    rank = {item.key: n for n, item in enumerate(items)}
    assert [rank[a.item_key] for a in answers] == sorted(rank[a.item_key] for a in answers)
    records = JudgeRecords(result.verdicts)
    in_memory = records.sorted_by(
        "item_key",
        "model",
        "sample_index",
        "panel_position",
        "rubric",
        key=lambda name, value: value.value if name == "rubric" else value,
    )
    assert list(records) == list(in_memory)
    # Each record's verdicts in the panel's App. F order, as the scores take them.
    assert all(
        list(r.says_yes) == [sq.key for sq in sub_questions(r.rubric, r.environment)]
        for r in result.verdicts
    )

    # Scored from the records without their call keys and raw outputs: the same cells.
    countries = {r.scoped.election.id: r.scoped.election.country.upper() for r in result.elections}
    full = score_run(records, result.items, panel_size=3, countries=countries)
    pd.testing.assert_frame_equal(score_study(result, study.config).cells, full.cells)

    finish_run(study, result)
    assert not run.spool.exists()
    assert run.answers.read_text(encoding="utf-8") == "".join(
        answer_line(a) + "\n" for a in answers
    )
    assert run.judges.read_text(encoding="utf-8") == "".join(
        line + "\n" for line in judge_record_lines(in_memory)
    )
    assert list(result.answers) == answers  # read from its place now


def test_an_interrupted_rerun_tears_no_file(
    tmp_path: Path, server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_study(tmp_path, server.base_url)
    study = _study(config)
    finish_run(study, asyncio.run(study.execute(quiet=True)))
    run = RunDir(study.run_dir)
    before = {path: path.read_bytes() for path in (run.answers, run.judges)}

    judged = 0
    real = answers_stage.judge_answers

    async def judge_then_die(*args, **kwargs):
        nonlocal judged
        judged += 1
        if judged > 20:
            raise Interrupted  # the run stops in the middle of the stage
        return await real(*args, **kwargs)

    monkeypatch.setattr(answers_stage, "judge_answers", judge_then_die)
    monkeypatch.setattr(spool, "SPOOL_BUDGET", 2048)  # some records reach the spool's runs
    with pytest.raises(Interrupted):
        asyncio.run(_study(config).execute(quiet=True))
    assert {path: path.read_bytes() for path in before} == before
    assert any(run.spool.iterdir())  # what it wrote so far is only in the spool

    monkeypatch.setattr(answers_stage, "judge_answers", real)
    rerun = _study(config)
    finish_run(rerun, asyncio.run(rerun.execute(quiet=True)))
    assert {path: path.read_bytes() for path in before} == before
    assert not run.spool.exists()

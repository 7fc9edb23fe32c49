"""``RunDir``: every file of a run directory named once, read back as written, and no name from
the run's data leading out of it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from annotate.small_run import small_answers, small_items, small_records
from polistemics.conditions import Variant
from polistemics.llm.store import RunStore
from polistemics.paths import UnsafePathError
from polistemics.runlog import RunDir, RunFileError


def test_every_file_has_one_name_under_the_root(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    names = {
        "store": "store.sqlite",
        "manifest": "run.json",
        "cells": "scores/cells.csv",
        "summary": "scores/summary.json",
        "tables": "tables",
        "evidence": "evidence.jsonl",
        "answers": "answers.jsonl",
        "judges": "judges.jsonl",
        "judge_repeats": "judge_repeats.jsonl",
        "stance_codes": "stance_codes.jsonl",
        "prior_probe": "prior_probe.jsonl",
        "swapped_items": "swapped_items.jsonl",
        "exports": "exports",
    }
    assert {k: getattr(run, k).relative_to(tmp_path).as_posix() for k in names} == names
    assert RunDir(str(tmp_path)) == run and not run.is_finished()


def test_the_call_cache_and_run_dir_agree_on_the_store(tmp_path: Path) -> None:
    with RunStore(RunDir(tmp_path).store) as store:
        assert store.call_stats() == []
    assert RunDir(tmp_path).store.is_file()


@pytest.mark.parametrize("bad", ["..", "", "../../x", "/etc", "a/b", "x\n"])
def test_a_release_folder_never_leads_out_of_the_run(tmp_path: Path, bad: str) -> None:
    with pytest.raises(UnsafePathError):
        RunDir(tmp_path).release_folder(bad, Variant.FULL)
    assert RunDir(tmp_path).release_folder("de", Variant.ENGLISH) == tmp_path / "exports/de/en_v1"


def test_stage_outputs_read_back_as_written(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run")
    items = small_items(hostile=True)
    answers = small_answers(items, hostile=True)
    records = small_records(items, answers)
    assert run.read_answers() is None and run.read_judge_records() is None
    run.write_answers(answers)
    run.write_judge_records(records)
    run.write_release_answers(items, answers)
    assert run.read_answers() == answers
    assert run.read_judge_records() == records
    assert {i.key for i in run.read_items()} == {i.key for i in items}
    lines = run.judges.read_text(encoding="utf-8").splitlines()
    general = [
        json.dumps(r.model_dump(mode="json"), ensure_ascii=False, sort_keys=True) for r in records
    ]
    assert lines == general  # the fast writer's bytes are the general encoder's


def test_a_bad_record_names_the_file_and_record(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    run.answers.write_text('{"item_key": "k", "model": "m", "status": "ok"}\n{"model": 1}\n')
    with pytest.raises(RunFileError, match=r"answers.jsonl, record 2, field 'item_key'"):
        run.read_answers()


def test_the_summary_is_written_as_given(tmp_path: Path) -> None:
    rows = [{"model": "m", "variant": "full", "emi": 0.5}]
    path = RunDir(tmp_path).write_summary(rows)
    assert path.read_text(encoding="utf-8") == json.dumps(rows, indent=2)


def test_importing_runlog_does_not_import_pandas() -> None:
    """The annotation app reads run files through runlog and starts without pandas."""
    code = "import sys, polistemics.runlog; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

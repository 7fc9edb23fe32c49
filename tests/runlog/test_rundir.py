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
from polistemics.runlog import (
    CodedStance,
    ProbeAnswer,
    RepeatVerdictRecord,
    RunDir,
    RunFileError,
    StanceCodeRecord,
)


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


def test_each_mechanism_file_is_written_by_its_own_writer_and_removed_when_empty(
    tmp_path: Path,
) -> None:
    run = RunDir(tmp_path)
    items = small_items()
    swapped = [items[-1].model_copy(update={"chunk_order": "swapped"})]
    election = items[0].election_id
    probe = ProbeAnswer(
        election_id=election,
        party_id="p1",
        statement_id="s-o1",
        model="m",
        language="English",
        status="ok",
        text="They agree.",
    )
    codes = [
        StanceCodeRecord(
            kind=kind,
            subject_key=key,
            model="m",
            sample_index=0,
            coder="c",
            panel_position=0,
            stance=CodedStance.AGREE,
            outside_knowledge=False,
        )
        for kind, key in (("answer", swapped[0].key), ("probe", probe.key))
    ]
    copies = run.exports / election
    assert run.write_swapped_items(swapped) == [run.swapped_items]
    assert run.write_prior_probe([probe], [election]) == [
        run.prior_probe,
        copies / "prior_probe.jsonl",
    ]
    assert run.write_stance_codes(codes, [*items, *swapped], [election]) == [
        run.stance_codes,
        copies / "stance_codes.jsonl",
    ]
    assert run.write_repeat_records([]) == []
    assert run.read_prior_probe() == [probe] and run.read_stance_codes() == codes
    assert (copies / "stance_codes.jsonl").read_bytes() == run.stance_codes.read_bytes()
    assert (copies / "prior_probe.jsonl").read_bytes() == run.prior_probe.read_bytes()
    line = json.loads(run.swapped_items.read_text(encoding="utf-8"))
    assert line["chunk_order"] == "swapped" and not run.judge_repeats.exists()

    # A later config without the mechanisms: each writer removes its own files, copies too.
    assert run.write_prior_probe([], [election]) == []
    assert run.prior_probe.exists() is False and not (copies / "prior_probe.jsonl").exists()
    assert run.stance_codes.exists() and (copies / "stance_codes.jsonl").exists()
    run.write_stance_codes([], items, [election])
    run.write_swapped_items([])
    assert not run.stance_codes.exists() and not (copies / "stance_codes.jsonl").exists()
    assert not run.swapped_items.exists()


def test_repeat_records_are_written_as_json_dumps_writes_them(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    items = small_items(hostile=True)
    records = small_records(items, small_answers(items, hostile=True))[:3]
    repeats = [RepeatVerdictRecord(**r.model_dump(), repeat=1 + i) for i, r in enumerate(records)]
    assert run.write_repeat_records(repeats) == [run.judge_repeats]
    general = "".join(
        json.dumps(r.model_dump(mode="json"), ensure_ascii=False, sort_keys=True) + "\n"
        for r in repeats
    )
    assert run.judge_repeats.read_text(encoding="utf-8") == general
    assert run.read_repeat_records() == repeats
    assert run.write_repeat_records([]) == [] and not run.judge_repeats.exists()

"""Incremental reruns (issue 32): what a rerun rebuilds is decided by content hashes of each
step's inputs, recorded beside the run's files (``run.incremental``)."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import time
from pathlib import Path

import pytest
from study_helpers import write_study

from polistemics.report.content import ReportOptions
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.incremental import (
    LEDGER_FILE,
    RECORDS,
    REPORT,
    Ledger,
    content_key,
    record_files,
    store_digest,
)
from polistemics.run.pipeline import Study
from polistemics.testing import FakeOpenAIServer

# --- the ledger ---------------------------------------------------------------------------


def test_a_step_is_current_only_for_its_key_and_its_files_as_written(tmp_path: Path) -> None:
    out = tmp_path / "a.txt"
    out.write_text("one")
    ledger = Ledger(tmp_path)
    assert not ledger.is_current(RECORDS, "k")  # nothing recorded
    ledger.record(RECORDS, "k", [out])
    assert ledger.is_current(RECORDS, "k")
    assert not ledger.is_current(RECORDS, "other key")
    out.write_text("two")  # same size, other bytes
    assert not ledger.is_current(RECORDS, "k")
    out.write_text("one")  # the same bytes again, a new modification time: by its hash
    assert ledger.is_current(RECORDS, "k")
    out.unlink()
    assert not ledger.is_current(RECORDS, "k")


def test_forgetting_one_step_keeps_the_others(tmp_path: Path) -> None:
    out = tmp_path / "a.txt"
    out.write_text("x")
    ledger = Ledger(tmp_path)
    ledger.record(RECORDS, "r", [out])
    ledger.record(REPORT, "p", [out])
    ledger.forget(RECORDS)
    assert not ledger.is_current(RECORDS, "r") and ledger.is_current(REPORT, "p")


@pytest.mark.parametrize("text", ["", "not json", '{"format": 0, "steps": {}}', "[1, 2]"])
def test_an_unreadable_or_old_ledger_makes_every_step_stale(tmp_path: Path, text: str) -> None:
    (tmp_path / LEDGER_FILE).write_text(text)
    assert Ledger(tmp_path).steps() == {}


def test_a_recorded_file_outside_the_run_is_never_current(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (tmp_path / "outside.txt").write_text("x")
    steps = {RECORDS: {"key": "k", "files": {"../outside.txt": {"size": 1, "mtime_ns": 0}}}}
    (run / LEDGER_FILE).write_text(json.dumps({"format": 1, "steps": steps}))
    assert not Ledger(run).is_current(RECORDS, "k")


def test_record_files_leave_out_the_report_store_manifest_lock_and_temporary_files(
    tmp_path: Path,
) -> None:
    for name in [
        "answers.jsonl",
        "scores/cells.csv",
        "report/report.html",
        "store.sqlite",
        "store.sqlite-wal",
        "run.json",
        ".run.lock",
        LEDGER_FILE,
        "exports/e/.outputs.jsonl.abc.tmp",
    ]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    found = sorted(p.relative_to(tmp_path).as_posix() for p in record_files(tmp_path, "report"))
    assert found == ["answers.jsonl", "scores/cells.csv"]


def test_the_content_key_changes_with_any_part() -> None:
    assert content_key({"a": 1, "b": 2}) == content_key({"b": 2, "a": 1})
    assert content_key({"a": 1}) != content_key({"a": 2})
    assert content_key("x", 1) != content_key("x", 2)


def _store(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE calls (key TEXT PRIMARY KEY, status TEXT, created_at REAL, x TEXT)")
    db.execute("CREATE TABLE annotation_labels (id INTEGER PRIMARY KEY, label TEXT)")
    db.executemany(
        "INSERT INTO calls VALUES (?, ?, ?, ?)", [("a", "ok", 1.0, "1"), ("b", "ok", 2.0, "2")]
    )
    db.commit()
    return db


def test_the_store_digest_sees_a_new_a_stored_again_or_a_labelled_call(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    assert store_digest(path) == "absent"
    db = _store(path)
    first = store_digest(path)
    assert store_digest(path) == first  # reading changes nothing
    db.execute("INSERT INTO calls VALUES ('c', 'ok', 3.0, '3')")
    db.commit()
    added = store_digest(path)
    assert added != first
    db.execute("UPDATE calls SET created_at = 4.0 WHERE key = 'a'")  # stored again
    db.commit()
    again = store_digest(path)
    assert again != added
    db.execute("INSERT INTO annotation_labels (label) VALUES ('yes')")
    db.commit()
    assert store_digest(path) != again
    db.close()


# --- a study rerun ------------------------------------------------------------------------


def _run(config_path: Path, *, skip_unchanged: bool = True):
    config = load_config(config_path)
    study = Study(config, config.run_dir(), log=lambda m: None)
    result = asyncio.run(study.execute(quiet=True, skip_unchanged=skip_unchanged))
    finish_run(study, result, ReportOptions(loo_min_items=config.loo_min_items))  # as the CLI
    return result


def _outputs(run: Path) -> dict[str, tuple[bytes, int]]:
    """Every output file's bytes and modification time (not run.json, the store, the lock)."""
    skip = {"run.json", "store.sqlite", "store.sqlite-wal", "store.sqlite-shm", ".run.lock"}
    found = {}
    for path in sorted(run.rglob("*")):
        name = path.relative_to(run).as_posix()
        if path.is_file() and name not in skip and not name.startswith(".run.lock"):
            found[name] = (path.read_bytes(), path.stat().st_mtime_ns)
    return found


def _page(run: Path) -> str:
    """The report page without what only the run's log of invocations changes: its build time
    (``Generated ...``), the invocations table and the count of invocations in the stage-times
    caption (a rerun with nothing new adds an invocation to run.json and draws no new page)."""
    page = (run / "report" / "report.html").read_text()
    page = "\n".join(line for line in page.splitlines() if "Generated " not in line)
    page = re.sub(r'<table class="data" id="invocations".*?</table>', "", page, flags=re.S)
    return re.sub(r" in invocation \d+ of \d+ \(started [^)]*\)", "", page)


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory):
    tmp_path = tmp_path_factory.mktemp("incremental")
    server = FakeOpenAIServer()
    with server:
        config = write_study(tmp_path, server.base_url, ablations="[]")
        first = _run(config)
        yield tmp_path, config, server, first


def test_a_rerun_with_nothing_new_replays_nothing_and_rewrites_nothing(study) -> None:
    tmp_path, config, server, first = study
    run = tmp_path / "run"
    assert first.unchanged_records is None and first.calls_made > 0
    before = _outputs(run)
    time.sleep(0.01)  # a rewritten file would get a new modification time
    server.reset_stats()
    rerun = _run(config)
    assert rerun.unchanged_records is not None  # no stage ran
    assert rerun.answers == [] and server.stats().requests == 0
    assert _outputs(run) == before  # every file's bytes and modification time
    manifest = json.loads((run / "run.json").read_text())
    assert [i["calls_made"] for i in manifest["invocations"]][-1] == 0
    assert manifest["calls_made_this_run"] == 0
    assert manifest["totals"]["calls"] == first.calls_made
    assert manifest["judging"]["panel"] == ["judge-a", "judge-b", "judge-c"]


def test_the_incremental_outputs_equal_a_full_finish_of_the_same_run(study) -> None:
    tmp_path, config, _, _ = study
    run = tmp_path / "run"
    _run(config)  # incremental (nothing new)
    incremental, page = _outputs(run), _page(run)
    manifest = json.loads((run / "run.json").read_text())
    time.sleep(0.01)
    full = _run(config, skip_unchanged=False)  # every stage replayed, every file rebuilt
    assert full.unchanged_records is None and full.answers
    rebuilt = _outputs(run)
    assert rebuilt.keys() == incremental.keys()
    # All the same but for the ledger and the run's log of invocations (run.json's, which a
    # rerun with nothing new extends without drawing the report again).
    run_log = ("report/report.html", "report/tables/invocations.csv", LEDGER_FILE)
    differ = [n for n in rebuilt if rebuilt[n][0] != incremental[n][0] and n not in run_log]
    assert differ == []
    # Records written again with the same bytes are left untouched (their time too).
    assert rebuilt["answers.jsonl"][1] == incremental["answers.jsonl"][1]
    assert rebuilt["judges.jsonl"][1] == incremental["judges.jsonl"][1]
    # run.json: the same record but for this invocation's own times.
    again = json.loads((run / "run.json").read_text())
    volatile = {"started", "finished", "stage_seconds", "invocations", "git_revision"}
    assert {k: v for k, v in again.items() if k not in volatile} == {
        k: v for k, v in manifest.items() if k not in volatile
    }
    # The page: the same but for the run's log of invocations and its build time.
    assert _page(run) == page


def _flip_one_judge_verdict(store: Path) -> None:
    """One stored judge reply says Yes where it said No (as if the judge had been asked again:
    a new time of storing)."""
    db = sqlite3.connect(store)
    key, text = db.execute(
        "SELECT key, response_text FROM calls WHERE stage = 'judge' AND response_text LIKE "
        "'%1. No%' ORDER BY key LIMIT 1"
    ).fetchone()
    db.execute(
        "UPDATE calls SET response_text = ?, created_at = ? WHERE key = ?",
        (text.replace("1. No", "1. Yes", 1), time.time(), key),
    )
    db.commit()
    db.close()


def test_a_changed_verdict_rebuilds_what_depends_on_it_and_only_that(study) -> None:
    tmp_path, config, server, _ = study
    run = tmp_path / "run"
    _run(config)
    before = _outputs(run)
    _flip_one_judge_verdict(run / "store.sqlite")
    time.sleep(0.01)
    server.reset_stats()
    rerun = _run(config)
    assert rerun.unchanged_records is None and server.stats().requests == 0
    after = _outputs(run)
    assert after["judges.jsonl"][0] != before["judges.jsonl"][0]  # the new verdict is in
    assert after["answers.jsonl"] == before["answers.jsonl"]  # untouched, time included
    assert after["evidence.jsonl"] == before["evidence.jsonl"]
    assert after["report/report.html"][1] != before["report/report.html"][1]  # drawn again
    # and it stays current for the next rerun
    assert _run(config).unchanged_records is not None


def test_a_changed_config_key_rebuilds_the_tables_it_changes(study) -> None:
    tmp_path, config, _, _ = study
    run = tmp_path / "run"
    _run(config)
    before = _outputs(run)
    tables_before = json.loads((run / "tables" / "manifest.json").read_text())["groups"]
    original = config.read_text()
    config.write_text(
        original.replace('name = "pipeline-test"', 'name = "pipeline-test"\nloo_min_items = 1')
    )
    try:
        time.sleep(0.01)
        rerun = _run(config)
    finally:
        config.write_text(original)
    assert rerun.unchanged_records is None
    after = _outputs(run)
    tables_after = json.loads((run / "tables" / "manifest.json").read_text())["groups"]
    assert tables_after["analyses"] != tables_before["analyses"]  # recomputed, other options
    assert tables_after["scores"] == tables_before["scores"]  # not
    assert after["answers.jsonl"] == before["answers.jsonl"]
    assert after["scores/cells.csv"] == before["scores/cells.csv"]
    assert after["report/report.html"][1] != before["report/report.html"][1]


def test_a_missing_or_changed_output_is_rebuilt(study) -> None:
    tmp_path, config, _, _ = study
    run = tmp_path / "run"
    _run(config)
    expected = (run / "scores" / "cells.csv").read_bytes()
    (run / "scores" / "cells.csv").write_text("tampered\n")
    assert _run(config).unchanged_records is None
    assert (run / "scores" / "cells.csv").read_bytes() == expected
    page = _page(run)
    (run / "report" / "report.html").unlink()
    again = _run(config)
    assert again.unchanged_records is not None  # the records are current, the report is not
    assert _page(run) == page  # drawn again from the run's files, the same

"""The report reads a run's judge records from their file where it uses them, never held whole."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from polistemics.report import verdict_source
from polistemics.report.browser import browser_payload
from polistemics.report.build import build_report
from polistemics.report.content import ReportOptions
from polistemics.report.inputs import ReportInputError
from polistemics.report.labels import ModelLabels
from polistemics.report.run_inputs import load_run_inputs
from polistemics.report.verdict_source import JudgeRecordFile, held, panel_tally_of
from polistemics.runlog import JudgeRecords, RunDir
from polistemics.runlog.read import read_chunks


def counted_reads(monkeypatch: pytest.MonkeyPatch, size: int) -> list[list[int]]:
    """Each read of a judge file as the sizes of its parts, ``size`` records at most."""
    reads: list[list[int]] = []

    def in_parts(path: Path, adapter, _size: int | None = None) -> Iterator[list]:
        reads.append([])
        for part in read_chunks(path, adapter, size):
            reads[-1].append(len(part))
            yield part

    monkeypatch.setattr(verdict_source, "read_chunks", in_parts)
    return reads


def never_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(self: RunDir) -> None:
        raise AssertionError("judges.jsonl read whole")

    monkeypatch.setattr(RunDir, "read_judge_records", refused)


def test_a_report_with_current_tables_reads_the_judge_records_once_in_parts(
    demo_run_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The item browser's one pass, 5 records at a time; no count or table needs them (the
    run's tables/ are current), and none are held in columns."""
    records = len(RunDir(demo_run_copy).judges.read_text(encoding="utf-8").splitlines())
    # the shared demo run's tables/ may have been rewritten with other options by another test
    # of this worker: made current for the default options first
    build_report(demo_run_copy)
    reads = counted_reads(monkeypatch, 5)
    never_whole(monkeypatch)
    monkeypatch.setattr(JudgeRecordFile, "read_for_scoring", lambda self: pytest.fail("held"))
    build_report(demo_run_copy)
    assert len(reads) == 1 and sum(reads[0]) == records and max(reads[0]) == 5


def test_stale_tables_read_the_records_once_more_in_parts_and_hold_none(
    demo_run_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Other resamples: the analysis tables are made again from the panel's tally and each
    judge's vote totals, counted in one more pass over the file in parts
    (``analysis_inputs``); the records are never held in columns."""
    shutil.rmtree(RunDir(demo_run_copy).tables, ignore_errors=True)  # stale whatever ran before
    reads = counted_reads(monkeypatch, 5)
    never_whole(monkeypatch)
    monkeypatch.setattr(JudgeRecordFile, "read_for_scoring", lambda self: pytest.fail("held"))
    build_report(demo_run_copy, options=ReportOptions(bootstrap_resamples=20))
    assert len(reads) == 2 and all(max(parts) == 5 for parts in reads)


def test_tables_from_the_streamed_tally_are_those_from_the_held_records(
    demo_run_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the pass in parts declines (``streamed_tally`` None), the records are held in
    columns without their texts and counted at once: the same tables either way."""
    options = ReportOptions(bootstrap_resamples=20)
    streamed = build_report(demo_run_copy, tmp_path / "streamed", options=options)
    shutil.rmtree(RunDir(demo_run_copy).tables)  # else current: nothing computed again
    kept: list[JudgeRecords] = []
    original = JudgeRecordFile.read_for_scoring

    def read_for_scoring(self: JudgeRecordFile) -> JudgeRecords:
        kept.append(original(self))
        return kept[-1]

    monkeypatch.setattr(JudgeRecordFile, "read_for_scoring", read_for_scoring)
    monkeypatch.setattr(verdict_source, "streamed_tally", lambda *args: None)
    at_once = build_report(demo_run_copy, tmp_path / "held", options=options)
    assert len(kept) == 1
    assert set(kept[0].column("raw_output")) == {None} and set(kept[0].column("call_key")) == {None}
    tables = sorted(p.name for p in (streamed.parent / "tables").glob("*.csv"))
    assert tables and tables == sorted(p.name for p in (at_once.parent / "tables").glob("*.csv"))
    for name in tables:
        assert (streamed.parent / "tables" / name).read_bytes() == (
            at_once.parent / "tables" / name
        ).read_bytes(), name


def test_the_browser_shows_from_the_file_what_it_shows_from_every_record(
    demo_run_copy: Path,
) -> None:
    inputs = load_run_inputs(demo_run_copy)
    assert isinstance(inputs.judge_records, JudgeRecordFile)
    whole = RunDir(demo_run_copy).read_judge_records()
    assert whole is not None and len(whole) > 100
    args = (inputs.answers, inputs.cells)
    for limit in (10_000, 50):  # every answer, and a sample of them
        from_file = browser_payload(*args, inputs.judge_records, ModelLabels(), max_answers=limit)
        assert from_file == browser_payload(*args, whole, ModelLabels(), max_answers=limit)
        assert any(item["j"] for item in from_file["items"])


def test_the_counts_from_the_file_equal_those_of_every_record(demo_run_copy: Path) -> None:
    inputs = load_run_inputs(demo_run_copy)
    records = held(inputs.judge_records)
    tally = panel_tally_of(inputs, records)
    whole = RunDir(demo_run_copy).read_judge_records()
    reference = panel_tally_of(inputs, whole)
    assert tally is not None and reference is not None and tally.n_verdicts > 100
    assert tally.counts.equals(reference.counts) and tally.excluded.equals(reference.excluded)
    assert (tally.ignored, tally.panel_size) == (reference.ignored, reference.panel_size)


def test_an_unreadable_judge_record_is_named_when_it_is_read(demo_run_copy: Path) -> None:
    judges = demo_run_copy / "judges.jsonl"
    lines = judges.read_text(encoding="utf-8").splitlines()
    lines[3] = re.sub(r'"panel_position": ?\d+', '"panel_position": "seat"', lines[3])
    judges.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ReportInputError, match=r"judges.jsonl, record 4, field 'panel_position'"):
        build_report(demo_run_copy)


def test_the_browser_makes_records_of_the_shown_answers_only(demo_run_copy: Path) -> None:
    """A record of an answer the browser does not show is parsed as JSON and no more (one that
    is no record does not stop it); one of a shown answer is validated, its number named."""
    inputs = load_run_inputs(demo_run_copy)
    path = RunDir(demo_run_copy).judges
    lines = path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]

    def payload() -> dict:
        source = JudgeRecordFile(path)
        return browser_payload(inputs.answers, inputs.cells, source, ModelLabels(), max_answers=1)

    expected = payload()
    row = expected["items"][0]
    environment, variant = expected["environments"][row["e"]][0], expected["variants"][row["v"]][0]
    shown = (f"{row['o']}|{environment}|{variant}", expected["models"][row["m"]][0])
    of_shown = [i for i, r in enumerate(records) if (r["item_key"], r["model"]) == shown]
    other = next(i for i, r in enumerate(records) if (r["item_key"], r["model"]) != shown)
    assert of_shown and row["j"]

    def with_bad(index: int) -> None:
        edited = list(lines)
        edited[index] = json.dumps(records[index] | {"attempts": "many"})
        path.write_text("\n".join(edited) + "\n", encoding="utf-8")

    with_bad(other)
    assert payload() == expected
    with_bad(of_shown[0])
    with pytest.raises(ReportInputError, match=rf"record {of_shown[0] + 1}, field 'attempts'"):
        payload()

"""The raw judge records a report reads, from their file, never held whole (issue 32).

A run's ``judges.jsonl`` has 853,000 records at 8x the paper's election; held in columns with
their raw outputs and call keys they took about 280 MB, for an item browser that shows those of
20,000 answers. The report reads them instead where each use needs them:

- the item browser: one pass in parts, keeping the rows of the answers it shows
  (``report.browser``);
- the panel's vote counts (``ReportInputs.panel_tally``) and the analysis tables (``held``): the records in
  columns without their own texts (call key, raw output), only while the analysis tables are
  computed (not at all when the run's ``tables/`` are current).

``JudgeRecordFile`` is what ``polistemics report RUN`` reads; a run's finish hands over the
call stage's spooled file (``runlog.spool.SpooledJudgeRecords``), which reads the same way.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence
from itertools import islice
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from polistemics.report.inputs import JudgeRecordSource, ReportInputError, ReportInputs
from polistemics.runlog import JudgeRecords, JudgeVerdictRecord, RunFileError
from polistemics.runlog.layout import JUDGES_FILE
from polistemics.runlog.read import read_chunks
from polistemics.scoring.verdict_engine import streamed_tally
from polistemics.scoring.verdict_table import UnknownItemError, panel_tally
from polistemics.scoring.verdicts import PanelTally

RECORDS_PER_READ = 10_000
_RECORDS = TypeAdapter(list[JudgeVerdictRecord])
_SOME_RECORDS = TypeAdapter(list[JudgeVerdictRecord | None])
_VALIDATED_AT_ONCE = 500
_UNANALYSED = {"call_key": None, "raw_output": None}  # fields no count or table reads


class JudgeRecordFile:
    """A ``judges.jsonl`` file's records, read ``RECORDS_PER_READ`` at a time whenever they are
    iterated, in the file's order (as ``RunDir.read_judge_records`` reads them)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def chunks(self) -> Iterator[list[JudgeVerdictRecord]]:
        try:
            yield from read_chunks(self.path, _RECORDS, RECORDS_PER_READ)
        except RunFileError as exc:  # a record that is not one (named by its number)
            raise ReportInputError(str(exc)) from None

    def __iter__(self) -> Iterator[JudgeVerdictRecord]:
        for chunk in self.chunks():
            yield from chunk

    def read_for_scoring(self) -> JudgeRecords:
        """Every record in columns, without its call key and raw output (None)."""
        records = JudgeRecords()
        for chunk in self.chunks():
            records.extend(record.model_copy(update=_UNANALYSED) for record in chunk)
        return records

    def __repr__(self) -> str:
        return f"JudgeRecordFile({self.path})"


class ChainedJudgeRecords:
    """Several sources' judge records one after the other (a combined report), each read where
    it is used as its own are."""

    def __init__(self, parts: Sequence[JudgeRecordSource | Sequence[JudgeVerdictRecord]]) -> None:
        self.parts = list(parts)

    def __iter__(self) -> Iterator[JudgeVerdictRecord]:
        for part in self.parts:
            yield from part

    def read_for_scoring(self) -> JudgeRecords:
        records = JudgeRecords()
        for part in self.parts:
            records.extend(record.model_copy(update=_UNANALYSED) for record in part)
        return records


class _RecordsOfAnswers:
    """``read_chunks``' validator of a part of ``judges.jsonl`` (one JSON array) that makes a
    record (validated) of the lines of these answers (item key, target model) only: every other
    line is parsed as JSON and no more. None in their place (a record line is never null:
    ``read_chunks`` names a failing record by its index in the part)."""

    def __init__(self, answers: Collection[tuple[str, str]]) -> None:
        self.answers = answers

    def validate_json(self, text: str) -> list[JudgeVerdictRecord]:
        try:
            rows = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            return _RECORDS.validate_json(text)  # the validator's own error names the record
        answers = self.answers
        for index, row in enumerate(rows):
            if not isinstance(row, dict) or (row.get("item_key"), row.get("model")) not in answers:
                rows[index] = None
        records: list[JudgeVerdictRecord] = []
        # validated a few at a time, each part's rows let go as its records are made: not a
        # part's every row as a dict and as a record at once
        for start in range(0, len(rows), _VALIDATED_AT_ONCE):
            end = start + _VALIDATED_AT_ONCE
            try:
                made = _SOME_RECORDS.validate_python(rows[start:end])
            except ValidationError:
                _SOME_RECORDS.validate_python(rows)  # the error again, by its place in the part
                raise
            rows[start:end] = [None] * len(made)
            records += (record for record in made if record is not None)
        return records


def records_of_answers(
    records: JudgeRecordSource, answers: Collection[tuple[str, str]]
) -> Iterator[JudgeVerdictRecord] | None:
    """A file's records (``JudgeRecordFile``, a spooled file) of these answers (item key, target
    model), in the file's order, read in parts: the item browser shows 20,000 answers, and a
    record made of every line of a study's 853,000 (8x the paper's election) took 7 s of its
    pass (issue 32). None: ``records`` is no file's."""
    path = getattr(records, "path", None)
    if not isinstance(path, Path) or not path.is_file():
        return None
    return _read_records_of(path, _RecordsOfAnswers(answers))


def _read_records_of(path: Path, validator: _RecordsOfAnswers) -> Iterator[JudgeVerdictRecord]:
    try:
        for chunk in read_chunks(path, validator, RECORDS_PER_READ):  # type: ignore[arg-type]
            yield from chunk
    except RunFileError as exc:  # a record that is not one (named by its number)
        raise ReportInputError(str(exc)) from None


def held(
    records: JudgeRecordSource | Sequence[JudgeVerdictRecord] | None,
) -> Sequence[JudgeVerdictRecord] | None:
    """The records as a sequence for the vote counts and analysis tables: a file's read into
    columns without their own texts, others as they are."""
    if isinstance(records, JudgeRecordSource):
        return records.read_for_scoring()
    return records


def panel_tally_of(
    inputs: ReportInputs, records: Sequence[JudgeVerdictRecord] | None
) -> PanelTally | None:
    """The panel's vote counts: ``inputs.judging`` when given (a run's finish scored them),
    else counted from ``records`` (``held(inputs.judge_records)``) with ``inputs.panel_size``;
    None without raw verdicts. ``ReportInputError``: a record names no item of the run."""
    if inputs.judging is not None or records is None:
        return inputs.judging
    try:
        return panel_tally(records, {item.key: item for item in inputs.items}, inputs.panel_size)
    except UnknownItemError as exc:
        raise ReportInputError(f"{JUDGES_FILE}: {exc}") from None


def analysis_inputs(
    inputs: ReportInputs,
) -> tuple[PanelTally | None, JudgeRecordSource | Sequence[JudgeVerdictRecord] | None]:
    """The panel's tally and the judge records the analysis tables are computed from.

    A tally with each judge's vote totals (``PanelTally.judge_totals``: the finish's scoring
    counted them, or here one pass over a file's records in parts, ``streamed_tally``) leaves
    the tables one pass over the records (the pushback turns' first answers' verdicts): they
    stay on disk. Otherwise they are ``held`` in columns while the tables are made, and the
    tally is counted from them (``panel_tally_of``, which names a record's unknown item)."""
    records, tally = inputs.judge_records, inputs.judging
    if tally is None and isinstance(records, JudgeRecordSource) and inputs.items:
        by_key = {item.key: item for item in inputs.items}
        tally = streamed_tally(_in_parts(records), by_key, inputs.panel_size)
    if tally is not None and tally.judge_totals is not None:
        return tally, records
    held_records = held(records)
    return (tally or panel_tally_of(inputs, held_records)), held_records


def _in_parts(records: JudgeRecordSource) -> Iterator[list[JudgeVerdictRecord]]:
    found = iter(records)
    while part := list(islice(found, RECORDS_PER_READ)):
        yield part

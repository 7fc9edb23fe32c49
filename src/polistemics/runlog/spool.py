"""Records written to disk as they arrive, read back in their file's order (issue 32).

A run's answers and judge records arrive in the order their calls finish; ``answers.jsonl`` and
``judges.jsonl`` list them in a fixed order (answers by target x item x sample, judge records by
item, model, sample, panel seat and rubric). ``SortingSpool`` takes each record's final line
with its sort key as it arrives, holds at most a budget of bytes of them, writes each full
buffer sorted to a run file in the run's spool folder (``RunDir.spool``, hidden), and merges the
runs (``heapq.merge``) into the sorted file: memory is the buffer, never the study. The sort is
stable (equal keys keep their arrival order), as ``sorted`` over the whole study would be.

``SpooledAnswers`` and ``SpooledJudgeRecords`` are such a file's records to the stages after the
one that wrote it: iterating reads the file chunk by chunk (no list of the study), and the finish
moves the file to its place in the run directory (``place``, never a torn file).
"""

from __future__ import annotations

import heapq
import json
import os
import shutil
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from pydantic import TypeAdapter

from polistemics.paths import replacing
from polistemics.rubrics import BY_KEY
from polistemics.runlog.answers import Answer
from polistemics.runlog.items import EnvironmentItem
from polistemics.runlog.judge_records import JudgeRecords
from polistemics.runlog.layout import ANSWERS_FILE, JUDGES_FILE
from polistemics.runlog.read import read_chunks
from polistemics.runlog.verdicts import JudgeVerdictRecord
from polistemics.runlog.write import answer_line, judge_record_lines

# Bytes of lines a spool holds before it writes them, sorted, to a run file of its own.
SPOOL_BUDGET = 8 << 20
RECORDS_PER_READ = 10_000

_KEY = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"))  # no raw tab in a key
_ANSWERS = TypeAdapter(list[Answer])
_JUDGE_RECORDS = TypeAdapter(list[JudgeVerdictRecord])


class SortingSpool:
    """Lines added in any order with their keys (tuples of str and int), read back sorted by key.

    ``add`` keeps at most ``budget`` bytes of lines; beyond it they go, sorted, to a run file
    ``<folder>/.<name>.<n>`` (one line each: the key as JSON, a tab, the line). ``lines`` merges
    the runs and what is held. Lines must not contain a newline."""

    def __init__(self, folder: Path, name: str, budget: int | None = None) -> None:
        self.folder, self.name = Path(folder), name
        self.budget = SPOOL_BUDGET if budget is None else budget
        self._held: list[tuple[tuple, str]] = []
        self._held_bytes = 0
        self._runs: list[Path] = []
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def add(self, key: tuple, line: str) -> None:
        self._held.append((key, line))
        self._held_bytes += len(line)
        self.count += 1
        if self._held_bytes >= self.budget:
            self._spill()

    def _spill(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f".{self.name}.{len(self._runs)}"
        self._held.sort(key=_first)  # stable: equal keys stay in arrival order
        with path.open("w", encoding="utf-8") as handle:
            for key, line in self._held:
                handle.write(f"{_KEY.encode(key)}\t{line}\n")
        self._runs.append(path)
        self._held, self._held_bytes = [], 0

    def lines(self) -> Iterator[str]:
        """Every line, sorted by key; equal keys in the order they were added."""
        self._held.sort(key=_first)
        handles = [path.open(encoding="utf-8", newline="") for path in self._runs]
        try:
            # heapq.merge takes equal keys from earlier iterables first: runs in arrival order,
            # what is held last of all.
            merged = heapq.merge(*map(_run_lines, handles), iter(self._held), key=_first)
            for _, line in merged:
                yield line
        finally:
            for handle in handles:
                handle.close()

    def write(self, path: Path) -> int:
        """Every line, sorted, into ``path`` (a new file renamed into place); the run files are
        removed. Returns how many."""
        count = 0
        with replacing(path) as temporary, temporary.open("w", encoding="utf-8") as handle:
            for line in self.lines():
                handle.write(line + "\n")
                count += 1
        self.discard()
        return count

    def discard(self) -> None:
        for run in self._runs:
            run.unlink(missing_ok=True)
        self._runs, self._held, self._held_bytes = [], [], 0


_UNSCORED = {"call_key": None, "raw_output": None}  # what scoring never reads
_APP_F = {key: rank for rank, key in enumerate(BY_KEY)}
_ORDERED: dict[tuple[str, ...], tuple[str, ...]] = {}  # keys as read -> in App. F order


def app_f_order(says_yes: dict[str, bool | None]) -> None:
    """A verdict dict's keys put in place into App. F order (``rubrics.SUB_QUESTIONS``), the
    order the panel records them in; keys of no sub-question after those, as they were."""
    keys = tuple(says_yes)
    ordered = _ORDERED.get(keys)
    if ordered is None:
        ordered = tuple(sorted(keys, key=lambda key: _APP_F.get(key, len(_APP_F))))
        _ORDERED[keys] = ordered
    if ordered != keys:
        values = [says_yes[key] for key in ordered]
        says_yes.clear()
        says_yes.update(zip(ordered, values, strict=True))


def _first(pair: tuple[tuple, str]) -> tuple:
    return pair[0]


def _run_lines(handle: IO[str]) -> Iterator[tuple[tuple, str]]:
    for raw in handle:
        key, _, line = raw.partition("\t")
        yield tuple(json.loads(key)), line.removesuffix("\n")


def fresh_spool(folder: Path) -> Path:
    """The spool folder, emptied: what an interrupted run left there is not this run's (the
    store holds every call, so the stage makes its records again)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class _SpooledFile:
    """A run file's records on disk: first in the spool folder, then (``place``) in the run
    directory. Iterating reads the file where it is now, chunk by chunk."""

    adapter: TypeAdapter

    def __init__(self, path: Path, count: int) -> None:
        self.path, self.count = Path(path), count

    def __len__(self) -> int:
        return self.count

    def __bool__(self) -> bool:
        return self.count > 0

    def chunks(self) -> Iterator[list]:
        if not self.count:  # no file was written for nothing
            return iter(())
        return read_chunks(self.path, self.adapter, RECORDS_PER_READ)

    def __iter__(self) -> Iterator[Any]:
        for chunk in self.chunks():
            yield from chunk

    def place(self, final: Path) -> Path:
        """The file moved to ``final`` (renamed over it; left as it was when ``final`` holds
        the same bytes already, as ``paths.replacing`` does); it is read from there after."""
        if self.path == Path(final):
            return self.path
        with replacing(final) as temporary:
            if self.path.is_file():
                os.replace(self.path, temporary)
        self.path = Path(final)
        return self.path

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.path}, {self.count} records)"


class SpooledAnswers(_SpooledFile):
    """``answers.jsonl``'s answers, read as they are iterated. ``ok_models``: the target models
    with an ``ok`` answer, when the spool counted them as the answers arrived (else read)."""

    adapter = _ANSWERS

    def __init__(self, path: Path, count: int, ok_models: frozenset[str] | None = None) -> None:
        super().__init__(path, count)
        self._ok_models = ok_models

    def read(self) -> list[Answer]:
        """Every answer as a list (for a reader that needs them all at once)."""
        return [answer for chunk in self.chunks() for answer in chunk]

    def ok_models(self) -> frozenset[str]:
        """The models with at least one ``ok`` answer (the file is read only when the spool did
        not count them: at the paper's scale a read of its 12,753 answers takes 0.2 s)."""
        if self._ok_models is None:
            self._ok_models = frozenset(answer.model for answer in self if answer.ok)
        return self._ok_models


class SpooledJudgeRecords(_SpooledFile):
    """``judges.jsonl``'s records, read as they are iterated. The file lists each record's
    verdicts by key (``sort_keys``); the panel made them in App. F order, in which the scores
    and tables take them: they are read back in that order (``app_f_order``)."""

    adapter = _JUDGE_RECORDS

    def chunks(self) -> Iterator[list]:
        for chunk in super().chunks():
            for record in chunk:
                app_f_order(record.says_yes)
            yield chunk

    def read(self) -> JudgeRecords:
        """Every record, in columns (``JudgeRecords``), read 10,000 at a time."""
        records = JudgeRecords()
        for chunk in self.chunks():
            records.extend(chunk)
        return records

    def read_for_scoring(self) -> JudgeRecords:
        """Every record in columns without its call key and raw output (None), the two fields
        of a record that are its own text (the others are few distinct values, stored once):
        what the scores read (``scoring.verdict_table``: item, model, sample, rubric, panel
        seat, judge and verdicts). A real judge's raw output is longer than the test server's,
        so this saves more on real runs than in the paper-scale benchmark."""
        records = JudgeRecords()
        for chunk in self.chunks():
            records.extend(record.model_copy(update=_UNSCORED) for record in chunk)
        return records


class StudySpool:
    """The answers + judges stage's records as they arrive: each answer and judge record goes
    to its spool at once, keyed by its place in its file; ``finish`` writes both files, sorted,
    into the spool folder and returns them to read. Only counts are held."""

    def __init__(
        self,
        folder: Path,
        items: Iterable[EnvironmentItem],
        targets: Iterable[str],
        budget: int | None = None,
    ) -> None:
        self.folder = Path(folder)
        # answers.jsonl: target x item x sample, the order ``answers.generate`` asks them in.
        # Keys interned: the stage's own index of its items holds the same strings.
        self._item_rank = {sys.intern(item.key): rank for rank, item in enumerate(items)}
        self._target_rank = {name: rank for rank, name in enumerate(targets)}
        self._answers = SortingSpool(self.folder, "answers", budget)
        self._judges = SortingSpool(self.folder, "judges", budget)
        self.ok = self.failed = 0
        self._ok_models: set[str] = set()
        self.skipped: dict[str, int] = {}  # answers not judged, by why

    def add_answer(self, answer: Answer) -> None:
        key = (
            self._target_rank[answer.model],
            self._item_rank[answer.item_key],
            answer.sample_index,
        )
        self._answers.add(key, answer_line(answer))
        if answer.ok:
            self.ok += 1
            self._ok_models.add(answer.model)
        else:
            self.failed += 1

    def add_judged(self, records: Iterable[JudgeVerdictRecord], skipped: Mapping[str, int]) -> None:
        records = list(records)
        for record, line in zip(records, judge_record_lines(records), strict=True):
            self._judges.add(judge_record_key(record), line)
        for why, n in skipped.items():
            self.skipped[why] = self.skipped.get(why, 0) + n

    def finish(self) -> tuple[SpooledAnswers, SpooledJudgeRecords]:
        answers, judges = self.folder / f".{ANSWERS_FILE}", self.folder / f".{JUDGES_FILE}"
        return (
            SpooledAnswers(answers, self._answers.write(answers), frozenset(self._ok_models)),
            SpooledJudgeRecords(judges, self._judges.write(judges)),
        )


def judge_record_key(record: JudgeVerdictRecord) -> tuple:
    """A judge record's place in ``judges.jsonl``: item, target model, sample, panel seat and
    rubric."""
    return (
        record.item_key,
        record.model,
        record.sample_index,
        record.panel_position,
        record.rubric.value,
    )

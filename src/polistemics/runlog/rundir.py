"""``RunDir``: one run directory, every file of it named, each read and written with its type.

Every reader of a run directory (``score``, ``report``, ``compare``, ``annotate``) and the run
itself find its files here (``layout`` holds the names). A name that comes from the run's data
(an election id) becomes a path only through ``paths.check_name`` and ``paths.inside``, so it
cannot lead out of the run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import TypeAdapter

from polistemics.conditions import Variant
from polistemics.records import Evidence
from polistemics.runlog import layout, read, write
from polistemics.runlog.answers import Answer, ProbeAnswer
from polistemics.runlog.codes import StanceCodeRecord
from polistemics.runlog.items import EnvironmentItem
from polistemics.runlog.judge_records import JudgeRecords
from polistemics.runlog.manifest import RunManifest
from polistemics.runlog.pushback import PushbackTurn
from polistemics.runlog.release_io import read_release_items
from polistemics.runlog.verdicts import JudgeVerdictRecord, RepeatVerdictRecord

if TYPE_CHECKING:
    import pandas as pd

JUDGE_RECORDS_PER_READ = 10_000
SPOOL_FOLDER = ".spool"  # hidden: no output of the run (``run.incremental``, benchmarks)
_ANSWERS = TypeAdapter(list[Answer])
_JUDGE_RECORDS = TypeAdapter(list[JudgeVerdictRecord])
_REPEAT_RECORDS = TypeAdapter(list[RepeatVerdictRecord])
_EVIDENCE = TypeAdapter(list[Evidence])
_STANCE_CODES = TypeAdapter(list[StanceCodeRecord])
_PROBES = TypeAdapter(list[ProbeAnswer])
_PUSHBACK = TypeAdapter(list[PushbackTurn])


@dataclass(frozen=True)
class RunDir:
    """A run directory (it need not exist yet). Readers return None for a file that is absent
    (the run did not write it) and raise ``RunFileError`` for one that cannot be read."""

    root: Path

    def __init__(self, root: Path | str) -> None:
        object.__setattr__(self, "root", Path(root))

    # Where each file lives.

    @property
    def store(self) -> Path:
        """The SQLite store: model calls, and the annotation sample and labels beside them."""
        return self.root / layout.STORE_FILE

    @property
    def manifest(self) -> Path:
        return self.root / layout.MANIFEST_FILE

    @property
    def cells(self) -> Path:
        return self.root / layout.CELLS_FILE

    @property
    def summary(self) -> Path:
        return self.root / layout.SUMMARY_FILE

    @property
    def tables(self) -> Path:
        """The analysis and score tables, with ``manifest.json`` saying what they are current
        for (written by the finish step, read by ``report`` and ``score``)."""
        return self.root / layout.TABLES_FOLDER

    @property
    def evidence(self) -> Path:
        return self.root / layout.EVIDENCE_FILE

    @property
    def answers(self) -> Path:
        return self.root / layout.ANSWERS_FILE

    @property
    def judges(self) -> Path:
        return self.root / layout.JUDGES_FILE

    @property
    def judge_repeats(self) -> Path:
        return self.root / layout.REPEATS_FILE

    @property
    def stance_codes(self) -> Path:
        return self.root / layout.STANCE_CODES_FILE

    @property
    def prior_probe(self) -> Path:
        return self.root / layout.PRIOR_PROBE_FILE

    @property
    def swapped_items(self) -> Path:
        return self.root / layout.SWAPPED_ITEMS_FILE

    @property
    def pushback(self) -> Path:
        return self.root / layout.PUSHBACK_FILE

    @property
    def pushback_judges(self) -> Path:
        return self.root / layout.PUSHBACK_JUDGES_FILE

    @property
    def pushback_codes(self) -> Path:
        return self.root / layout.PUSHBACK_CODES_FILE

    @property
    def spool(self) -> Path:
        """The hidden folder where the answers and judge records are written as they arrive,
        before the finish moves them to their files (``runlog.spool``)."""
        return self.root / SPOOL_FOLDER

    @property
    def exports(self) -> Path:
        return self.root / layout.EXPORTS_FOLDER

    def release_folder(self, election_id: str, variant: Variant) -> Path:
        """``exports/<election>/[anon_v1|en_v1]``; an id that would lead out is refused."""
        return layout.release_folder(self.root, election_id, variant)

    def release_item_files(self) -> list[Path]:
        """Every ``exports/<election>/[anon_v1|en_v1/]ground_truth.jsonl``, sorted."""
        return layout.release_item_files(self.root)

    def is_finished(self) -> bool:
        """A finished run: it has ``scores/cells.csv``."""
        return layout.is_run_dir(self.root)

    # Reading.

    def read_manifest(self) -> RunManifest | None:
        return read.read_manifest(self.manifest)

    def read_cells(self, *, compact: bool = False) -> pd.DataFrame:
        """``scores/cells.csv``; with ``compact``, its text columns coded (``tables.read_cells``)."""
        from polistemics.runlog.tables import read_cells  # pandas only when a table is read

        return read_cells(self.cells, compact=compact)

    def read_items(self) -> list[EnvironmentItem]:
        """The items of every release export of the run (they carry chunk provenance)."""
        items: list[EnvironmentItem] = []
        for path in self.release_item_files():
            items.extend(read_release_items(path))
        return items

    def read_answers(self) -> list[Answer] | None:
        return read.read_list(self.answers, _ANSWERS)

    def read_judge_records(self) -> JudgeRecords | None:
        """Read 10,000 records at a time into columns (``JudgeRecords``): never every record as
        an object at once."""
        if not self.judges.is_file():
            return None
        records = JudgeRecords()
        for chunk in read.read_chunks(self.judges, _JUDGE_RECORDS, JUDGE_RECORDS_PER_READ):
            records.extend(chunk)
        return records

    def read_repeat_records(self) -> list[RepeatVerdictRecord] | None:
        return read.read_list(self.judge_repeats, _REPEAT_RECORDS)

    def read_evidence(self) -> list[Evidence] | None:
        return read.read_list(self.evidence, _EVIDENCE)

    def read_stance_codes(self) -> list[StanceCodeRecord] | None:
        """None when the run did not code stances."""
        return read.read_list(self.stance_codes, _STANCE_CODES)

    def read_prior_probe(self) -> list[ProbeAnswer] | None:
        """None when the run did not probe priors."""
        return read.read_list(self.prior_probe, _PROBES)

    def read_pushback(
        self,
    ) -> tuple[list[PushbackTurn], list[JudgeVerdictRecord], list[StanceCodeRecord]] | None:
        """The pushback turns, the second answers' verdicts and both answers' stance codes;
        None when the run had no pushback turns."""
        turns = read.read_list(self.pushback, _PUSHBACK)
        if turns is None:
            return None
        verdicts = read.read_list(self.pushback_judges, _JUDGE_RECORDS) or []
        codes = read.read_list(self.pushback_codes, _STANCE_CODES) or []
        return turns, verdicts, codes

    # Writing.

    def write_cells(self, cells: pd.DataFrame) -> Path:
        from polistemics.runlog.tables import write_cells

        return write_cells(self.cells, cells)

    def write_summary(self, summaries: list[dict]) -> Path:
        """``scores/summary.json`` from rows computed by scoring (``scoring.run_scores``)."""
        return write.write_summary(self.summary, summaries)

    def write_evidence(self, evidence: Iterable[Evidence]) -> Path:
        write.write_jsonl(self.evidence, (ev.model_dump(mode="json") for ev in evidence))
        return self.evidence

    def write_answers(self, answers: Iterable[Answer]) -> Path:
        write.write_lines(self.answers, map(write.answer_line, answers))
        return self.answers

    def write_judge_records(self, records: Iterable[JudgeVerdictRecord]) -> Path:
        write.write_lines(self.judges, write.judge_record_lines(records))
        return self.judges

    def write_release_answers(
        self, items: list[EnvironmentItem], answers: list[Answer]
    ) -> list[Path]:
        """``ground_truth.jsonl`` and ``outputs.jsonl`` of every release folder."""
        return write.write_release_answers(self.root, items, answers)

    def release_folders(
        self, items: list[EnvironmentItem]
    ) -> list[tuple[Path, list[EnvironmentItem]]]:
        """Per election and variant with items: its release folder and those items."""
        return write.release_folders(self.root, items)

    def write_repeat_records(self, records: list[RepeatVerdictRecord]) -> list[Path]:
        """``judge_repeats.jsonl``, or no such file when there are no records."""
        return write.write_repeat_records(self.root, records)

    # The mechanism stages' files (issue 16): a file the run has no rows for is removed, so no
    # stale rows of an earlier config stay behind.

    def write_swapped_items(self, swapped: list[EnvironmentItem]) -> list[Path]:
        """``swapped_items.jsonl``: the swapped-order Contradictory items."""
        return write.write_swapped_items(self.root, swapped)

    def write_prior_probe(self, probes: list[ProbeAnswer], elections: Iterable[str]) -> list[Path]:
        """``prior_probe.jsonl`` and its copy in each election's ``exports/<election>/``."""
        return write.write_prior_probe(self.root, probes, elections)

    def write_stance_codes(
        self,
        codes: list[StanceCodeRecord],
        items: Iterable[EnvironmentItem],
        elections: Iterable[str],
    ) -> list[Path]:
        """``stance_codes.jsonl`` and its copy in each election's ``exports/<election>/``
        (``items``, swapped ones included, tell an answer code's election)."""
        return write.write_stance_codes(self.root, codes, items, elections)

    def write_pushback(
        self,
        turns: list[PushbackTurn],
        verdicts: list[JudgeVerdictRecord],
        codes: list[StanceCodeRecord],
    ) -> list[Path]:
        """``pushback.jsonl``, ``pushback_judges.jsonl`` and ``pushback_codes.jsonl``; each
        removed when it has no rows (no pushback: no stale files of an earlier config)."""
        return write.write_pushback(self.root, turns, verdicts, codes)

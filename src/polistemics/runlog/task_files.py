"""What every task beyond the paper's (issue 29) persists, whatever its items: the four files
under its folder ``tasks/<task>/`` of a run directory (``items.jsonl``, ``answers.jsonl``,
``codes.jsonl``, ``judges.jsonl``), and the records of the coder that the tasks share, which
reads every party an answer names with a code per party (``NavigationCodeRecord``, named for the
task that introduced it).

``TaskRecords[Item]`` holds a task's records, generic over the task's pydantic item model;
``TaskFiles[Item]`` reads, writes and removes them under the task's folder. Each task module
(``runlog.navigation``, ``runlog.comparison``, ``runlog.issue_mapping``) defines its item model
and one ``TaskFiles``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from polistemics.runlog.answers import Answer
from polistemics.runlog.codes import CodedStance
from polistemics.runlog.verdicts import JudgeVerdictRecord
from polistemics.runlog.write import write_jsonl

ITEMS_FILE = "items.jsonl"
ANSWERS_FILE = "answers.jsonl"
CODES_FILE = "codes.jsonl"
JUDGES_FILE = "judges.jsonl"
TASK_FILE_NAMES = (ITEMS_FILE, ANSWERS_FILE, CODES_FILE, JUDGES_FILE)


class NamedParty(BaseModel):
    """One party the answer names, as one coder seat read it."""

    model_config = ConfigDict(frozen=True)

    name: str  # the coder's name for it: the query's spelling, or the answer's own
    stance: CodedStance | None


class NavigationCodeRecord(BaseModel):
    """One coder seat's reading of one task answer: every party it names, with a code."""

    model_config = ConfigDict(frozen=True)

    item_key: str
    model: str
    sample_index: int
    coder: str
    panel_position: int
    named: list[NamedParty] | None  # None: missing (unreadable after a retry, call failed)
    missing: str | None = None
    call_key: str | None = None
    attempts: int = 1
    raw_output: str | None = None


Item = TypeVar("Item", bound=BaseModel)


class TaskRecords(BaseModel, Generic[Item]):
    """Everything a task wrote, in the order of its files (items, answers, codes, verdicts)."""

    items: list[Item] = []
    answers: list[Answer] = []
    codes: list[NavigationCodeRecord] = []
    verdicts: list[JudgeVerdictRecord] = []


@dataclass(frozen=True)
class TaskFiles(Generic[Item]):
    """A task's four files under ``folder`` (relative to the run directory)."""

    folder: str
    item_model: type[Item]

    def path(self, run_dir: Path) -> Path:
        return Path(run_dir) / self.folder

    def records(
        self,
        items: list[Item],
        answers: list[Answer],
        codes: list[NavigationCodeRecord],
        verdicts: list[JudgeVerdictRecord],
    ) -> TaskRecords[Item]:
        """The task's records, typed with its item model."""
        return TaskRecords[self.item_model](  # type: ignore[name-defined]
            items=items, answers=answers, codes=codes, verdicts=verdicts
        )

    def write(self, run_dir: Path, records: TaskRecords[Item]) -> None:
        folder = self.path(run_dir)
        parts = (records.items, records.answers, records.codes, records.verdicts)
        for name, rows in zip(TASK_FILE_NAMES, parts, strict=True):
            write_jsonl(folder / name, (row.model_dump(mode="json") for row in rows))

    def read(self, run_dir: Path) -> TaskRecords[Item] | None:
        """The task's records, or None when the run did not ask it (no items file); a missing
        file beside the items file reads as no records."""
        folder = self.path(run_dir)
        if not (folder / ITEMS_FILE).is_file():
            return None
        models = (self.item_model, Answer, NavigationCodeRecord, JudgeVerdictRecord)
        found: list[list] = []
        for name, model in zip(TASK_FILE_NAMES, models, strict=True):
            path = folder / name
            lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
            found.append([model.model_validate_json(line) for line in lines if line.strip()])
        items, answers, codes, verdicts = found
        return self.records(items, answers, codes, verdicts)

    def remove(self, run_dir: Path) -> None:
        """A run that no longer asks the task keeps no stale files of it."""
        folder = self.path(run_dir)
        for name in TASK_FILE_NAMES:
            (folder / name).unlink(missing_ok=True)

"""What the issue-mapping task (issue 29, item 4) persists: its items and the file names under
``tasks/issue_mapping/`` of a run directory.

An issue-mapping item is one *theme* of a source that groups statements by theme (StemWijzer's
``theme``, the generic format's ``theme`` column): the theme's statements, the Baseline
evidence of every party in scope on each of them, and the theme's *conflicts*, the statements
on which at least one party agrees and one disagrees. Answers are ``Answer`` records, coder
readings ``NavigationCodeRecord`` records (one per answer, conflict and coder seat; the
``item_key`` names the conflict as ``<item key>|<statement id>``) and verdicts
``JudgeVerdictRecord`` records, as for the navigation task.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from polistemics.conditions import Environment
from polistemics.records import Stance
from polistemics.runlog.answers import Answer
from polistemics.runlog.items import Chunk
from polistemics.runlog.navigation import NavigationCodeRecord
from polistemics.runlog.verdicts import JudgeVerdictRecord
from polistemics.runlog.write import write_jsonl

ISSUE_MAPPING_FOLDER = "tasks/issue_mapping"
FILES = ("items.jsonl", "answers.jsonl", "codes.jsonl", "judges.jsonl")


class ThemeStatement(BaseModel):
    """One statement of the theme with every party's real stance on it (the stance matrix)."""

    model_config = ConfigDict(frozen=True)

    statement_id: str
    number: int
    text: str
    stances: dict[str, Stance]  # party id -> stance
    conflict: bool  # at least one party agrees and one disagrees


class ThemeParty(BaseModel):
    model_config = ConfigDict(frozen=True)

    party_id: str
    party_name: str


class IssueMappingItem(BaseModel):
    """One theme in one environment (the Baseline), with the parties the answerer maps."""

    model_config = ConfigDict(frozen=True)

    election_id: str
    theme: str
    environment: Environment = Environment.BASELINE
    language: str
    output_language: str
    parties: list[ThemeParty]  # in the order the question names them
    statements: list[ThemeStatement]  # in the source's order
    chunks: list[Chunk]  # statement by statement, party by party
    chunk_statements: list[str]  # the statement id of each chunk
    election_party_names: list[str] = []

    @property
    def key(self) -> str:
        return f"issue_mapping|{self.election_id}|{self.theme}|{self.environment.value}"

    @property
    def conflicts(self) -> list[ThemeStatement]:
        return [s for s in self.statements if s.conflict]


class IssueMappingFiles(BaseModel):
    items: list[IssueMappingItem] = []
    answers: list[Answer] = []
    codes: list[NavigationCodeRecord] = []
    verdicts: list[JudgeVerdictRecord] = []


_MODELS = (IssueMappingItem, Answer, NavigationCodeRecord, JudgeVerdictRecord)


def issue_mapping_folder(run_dir: Path) -> Path:
    return Path(run_dir) / ISSUE_MAPPING_FOLDER


def write_issue_mapping_files(run_dir: Path, files: IssueMappingFiles) -> None:
    folder = issue_mapping_folder(run_dir)
    parts = (files.items, files.answers, files.codes, files.verdicts)
    for name, records in zip(FILES, parts, strict=True):
        write_jsonl(folder / name, (record.model_dump(mode="json") for record in records))


def read_issue_mapping_files(run_dir: Path) -> IssueMappingFiles | None:
    """The task's files, or None when the run did not ask it."""
    folder = issue_mapping_folder(run_dir)
    if not (folder / FILES[0]).is_file():
        return None
    found = []
    for name, model in zip(FILES, _MODELS, strict=True):
        path = folder / name
        lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
        found.append([model.model_validate_json(line) for line in lines if line.strip()])
    return IssueMappingFiles(items=found[0], answers=found[1], codes=found[2], verdicts=found[3])


def remove_issue_mapping_files(run_dir: Path) -> None:
    """A run that no longer asks the task keeps no stale files of it."""
    for name in FILES:
        (issue_mapping_folder(run_dir) / name).unlink(missing_ok=True)

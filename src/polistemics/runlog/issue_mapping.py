"""What the issue-mapping task (issue 29, item 4) persists: its items, and its files under
``tasks/issue_mapping/`` of a run directory (``runlog.task_files``).

An issue-mapping item is one *theme* of a source that groups statements by theme (StemWijzer's
``theme``, the generic format's ``theme`` column): the theme's statements, the Baseline
evidence of every party in scope on each of them, and the theme's *conflicts*, the statements
on which at least one party agrees and one disagrees. Answers are ``Answer`` records, coder
readings ``NavigationCodeRecord`` records (one per answer, conflict and coder seat; the
``item_key`` names the conflict as ``<item key>|<statement id>``) and verdicts
``JudgeVerdictRecord`` records, as for the navigation task.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from polistemics.conditions import Environment
from polistemics.records import Stance
from polistemics.runlog.items import Chunk
from polistemics.runlog.task_files import TaskFiles, TaskRecords


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


# Everything the task wrote, as read back from ``tasks/issue_mapping/`` (None: the run did not
# ask it).
IssueMappingFiles = TaskRecords[IssueMappingItem]
ISSUE_MAPPING_FILES = TaskFiles("tasks/issue_mapping", IssueMappingItem)
read_issue_mapping_files = ISSUE_MAPPING_FILES.read

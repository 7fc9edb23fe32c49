"""What the navigation task (issue 29) persists: its items, the coder's per-party readings and
the file names under ``tasks/navigation/`` of a run directory.

A navigation item is one statement in one information environment: the labelled evidence of the
parties in its scope (all parties with evidence on the statement, or a seeded subset), one of
which, the *focus party*, has its evidence degraded the way the environment says (none for
Absent, rewritten for Vague, contradicted, buried among distractors for Noisy; untouched in the
Baseline). Answers are ``Answer`` records and verdicts ``JudgeVerdictRecord`` records, as for the
party-position task; only their ``item_key`` names a navigation item.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from polistemics.conditions import Environment
from polistemics.records import Stance
from polistemics.runlog.answers import Answer
from polistemics.runlog.codes import CodedStance
from polistemics.runlog.items import Chunk
from polistemics.runlog.verdicts import JudgeVerdictRecord
from polistemics.runlog.write import write_jsonl

NAVIGATION_FOLDER = "tasks/navigation"
NAVIGATION_ITEMS_FILE = "items.jsonl"
NAVIGATION_ANSWERS_FILE = "answers.jsonl"
NAVIGATION_CODES_FILE = "codes.jsonl"
NAVIGATION_JUDGES_FILE = "judges.jsonl"

# What the focus party's answer should say, per environment: its stance where the evidence
# states it, "cannot be determined" where it does not, "conflicting" where two passages oppose.
FocusTruth = Literal["stance", "undetermined", "conflicting"]


class NavigationParty(BaseModel):
    """One party of a navigation item, with its ground truth from the stance matrix."""

    model_config = ConfigDict(frozen=True)

    party_id: str
    party_name: str  # as named to the answerer
    stance: Stance  # the party's real stance on the statement (the stance matrix)
    focus: bool = False


class NavigationItem(BaseModel):
    """One statement in one environment, with the parties the answerer is asked to place."""

    model_config = ConfigDict(frozen=True)

    election_id: str
    statement_id: str
    statement_number: int | None = None
    statement_text: str
    environment: Environment
    language: str
    output_language: str
    parties: list[NavigationParty]  # in the order the question names them
    chunks: list[Chunk]  # the context, in order
    # Per chunk, the party whose evidence it presents (a Contradictory item's opposing passage
    # presents the focus party's, written about it, whoever it was borrowed from). Empty in item
    # files written before it was recorded: each chunk's own party then.
    about: list[str] = []
    focus_party_id: str
    focus_truth: FocusTruth
    # Every party of the election, by name: an answer naming a party outside them invented it.
    election_party_names: list[str] = []
    part: int = 1  # a context over the token budget is split into parts (1-based)
    parts: int = 1

    @property
    def key(self) -> str:
        key = f"navigation|{self.statement_id}|{self.environment.value}"
        return key if self.parts == 1 else f"{key}|part{self.part}of{self.parts}"

    def chunk_parties(self) -> list[str]:
        """Per chunk, the party whose evidence it presents."""
        return self.about or [chunk.party_id for chunk in self.chunks]

    @property
    def focus(self) -> NavigationParty:
        return next(p for p in self.parties if p.party_id == self.focus_party_id)

    def expected(self, party: NavigationParty) -> CodedStance:
        """What a faithful, calibrated answer says of ``party`` (the focus party's per
        ``focus_truth``; every other party's evidence is intact, so its stance)."""
        if party.focus and self.focus_truth == "undetermined":
            return CodedStance.NO_POSITION
        if party.focus and self.focus_truth == "conflicting":
            return CodedStance.BOTH
        return CodedStance(party.stance.value.lower())


class NamedParty(BaseModel):
    """One party the answer names, as one coder seat read it."""

    model_config = ConfigDict(frozen=True)

    name: str  # the coder's name for it: the query's spelling, or the answer's own
    stance: CodedStance | None


class NavigationCodeRecord(BaseModel):
    """One coder seat's reading of one navigation answer: every party it names, with a code."""

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


def navigation_folder(run_dir: Path) -> Path:
    return Path(run_dir) / NAVIGATION_FOLDER


class NavigationFiles(BaseModel):
    """Everything the navigation task wrote, as read back from ``tasks/navigation/``."""

    items: list[NavigationItem] = []
    answers: list[Answer] = []
    codes: list[NavigationCodeRecord] = []
    verdicts: list[JudgeVerdictRecord] = []


def write_navigation_files(run_dir: Path, files: NavigationFiles) -> None:
    folder = navigation_folder(run_dir)
    for name, records in (
        (NAVIGATION_ITEMS_FILE, files.items),
        (NAVIGATION_ANSWERS_FILE, files.answers),
        (NAVIGATION_CODES_FILE, files.codes),
        (NAVIGATION_JUDGES_FILE, files.verdicts),
    ):
        write_jsonl(folder / name, (record.model_dump(mode="json") for record in records))


def read_navigation_files(run_dir: Path) -> NavigationFiles | None:
    """The task's files, or None when the run did not ask it."""
    folder = navigation_folder(run_dir)
    if not (folder / NAVIGATION_ITEMS_FILE).is_file():
        return None

    def rows(name: str, model: type[BaseModel]) -> list:
        path = folder / name
        if not path.is_file():
            return []
        return [
            model.model_validate_json(line)
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]

    return NavigationFiles(
        items=rows(NAVIGATION_ITEMS_FILE, NavigationItem),
        answers=rows(NAVIGATION_ANSWERS_FILE, Answer),
        codes=rows(NAVIGATION_CODES_FILE, NavigationCodeRecord),
        verdicts=rows(NAVIGATION_JUDGES_FILE, JudgeVerdictRecord),
    )


def remove_navigation_files(run_dir: Path) -> None:
    """A run that no longer asks the task keeps no stale files of it."""
    folder = navigation_folder(run_dir)
    for name in (
        NAVIGATION_ITEMS_FILE,
        NAVIGATION_ANSWERS_FILE,
        NAVIGATION_CODES_FILE,
        NAVIGATION_JUDGES_FILE,
    ):
        (folder / name).unlink(missing_ok=True)

"""What the navigation task (issue 29) persists: its items, and its files under
``tasks/navigation/`` of a run directory (``runlog.task_files``, with the coder's per-party
readings).

A navigation item is one statement in one information environment: the labelled evidence of the
parties in its scope (all parties with evidence on the statement, or a seeded subset), one of
which, the *focus party*, has its evidence degraded the way the environment says (none for
Absent, rewritten for Vague, contradicted, buried among distractors for Noisy; untouched in the
Baseline). Answers are ``Answer`` records and verdicts ``JudgeVerdictRecord`` records, as for the
party-position task; only their ``item_key`` names a navigation item.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from polistemics.conditions import Environment
from polistemics.records import Stance
from polistemics.runlog.codes import CodedStance
from polistemics.runlog.items import Chunk
from polistemics.runlog.task_files import NamedParty, NavigationCodeRecord, TaskFiles, TaskRecords

__all__ = ["NamedParty", "NavigationCodeRecord"]  # the tasks' shared coder records, as before

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


# Everything the task wrote, as read back from ``tasks/navigation/`` (None: the run did not ask it).
NavigationFiles = TaskRecords[NavigationItem]
NAVIGATION_FILES = TaskFiles("tasks/navigation", NavigationItem)
read_navigation_files = NAVIGATION_FILES.read

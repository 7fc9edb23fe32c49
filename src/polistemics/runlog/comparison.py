"""What the comparison task (issue 29, item 3) persists: its items, and its files under
``tasks/comparison/`` of a run directory (``runlog.task_files``).

A comparison item is one pair of parties on one statement in one information environment: the
question "How do A and B differ on S?", the labelled evidence of both parties, and the side of
the pair the environment degrades (none for Absent, rewritten for Vague, contradicted, buried
among distractors for Noisy; untouched in the Baseline). Pairs are *differing* (one party agrees
with the statement, the other disagrees) or *agreeing* (both take the same stance). Answers are
``Answer`` records, verdicts ``JudgeVerdictRecord`` records and the coder's readings
``NavigationCodeRecord`` records (the tasks' shared per-party coder's), as for navigation; only
their ``item_key`` names a comparison item.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from polistemics.conditions import Environment
from polistemics.records import Stance
from polistemics.runlog.codes import CodedStance
from polistemics.runlog.items import Chunk
from polistemics.runlog.navigation import FocusTruth
from polistemics.runlog.task_files import TaskFiles, TaskRecords

PairKind = Literal["differing", "agreeing"]
# What an answer says of the pair: the two parties' stances differ, are the same, or (a party
# without a stance, omitted, or unread) the answer does not settle it.
Relation = Literal["differ", "same", "undetermined"]
NamedPosition = Literal["first", "second"]


class ComparisonParty(BaseModel):
    """One side of a pair, with its ground truth from the stance matrix."""

    model_config = ConfigDict(frozen=True)

    party_id: str
    party_name: str  # as named to the answerer
    stance: Stance  # the party's real stance on the statement (the stance matrix)
    degraded: bool = False  # the side the environment applies to


class ComparisonItem(BaseModel):
    """One pair of parties on one statement in one environment."""

    model_config = ConfigDict(frozen=True)

    election_id: str
    statement_id: str
    statement_number: int | None = None
    statement_text: str
    environment: Environment
    language: str
    output_language: str
    pair: PairKind
    parties: list[ComparisonParty]  # the two parties, in the order the question names them
    chunks: list[Chunk]  # the context, in order
    # Per chunk, the party whose evidence it presents (a Contradictory item's opposing passage
    # presents the degraded side's, written about it, whoever it was borrowed from).
    about: list[str]
    degraded_truth: FocusTruth  # what the degraded side's answer should say
    # Every party of the election, by name: an answer naming a party outside them invented it.
    election_party_names: list[str] = []

    @property
    def key(self) -> str:
        first, second = self.parties
        return (
            f"comparison|{self.statement_id}|{first.party_id}|{second.party_id}|"
            f"{self.environment.value}"
        )

    @property
    def degraded(self) -> ComparisonParty:
        return next(p for p in self.parties if p.degraded)

    @property
    def intact(self) -> ComparisonParty:
        return next(p for p in self.parties if not p.degraded)

    @property
    def degraded_named(self) -> NamedPosition:
        """Whether the question names the degraded side first or second."""
        return "first" if self.parties[0].degraded else "second"

    def expected(self, party: ComparisonParty) -> CodedStance:
        """What a faithful, calibrated answer says of ``party`` (the degraded side's per
        ``degraded_truth``; the intact side's evidence is whole, so its stance)."""
        if party.degraded and self.degraded_truth == "undetermined":
            return CodedStance.NO_POSITION
        if party.degraded and self.degraded_truth == "conflicting":
            return CodedStance.BOTH
        return CodedStance(party.stance.value.lower())

    @property
    def true_relation(self) -> Relation:
        """The relation the stance matrix gives the pair (whatever the context shows)."""
        return "differ" if self.pair == "differing" else "same"

    @property
    def expected_relation(self) -> Relation:
        """The relation a calibrated answer states: the true one where the degraded side's
        stance is in the context, none where it is not."""
        return self.true_relation if self.degraded_truth == "stance" else "undetermined"


# Everything the task wrote, as read back from ``tasks/comparison/`` (None: the run did not ask it).
ComparisonFiles = TaskRecords[ComparisonItem]
COMPARISON_FILES = TaskFiles("tasks/comparison", ComparisonItem)
read_comparison_files = COMPARISON_FILES.read

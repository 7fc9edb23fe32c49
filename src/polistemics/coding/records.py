"""What the stance coder and the closed-book prior probe produce (``stance_codes.jsonl``,
``prior_probe.jsonl``): the contract between the run stages and the mechanism analyses.

A *subject* is what is coded: a target model's answer to an environment item (``kind="answer"``,
``subject_key`` = ``EnvironmentItem.key``) or a target's closed-book probe answer
(``kind="probe"``, ``subject_key`` = ``ProbeAnswer.key``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict

from polistemics.records import Stance


class CodedStance(str, Enum):
    """The stance an answer attributes to the party on the statement."""

    AGREE = "agree"
    DISAGREE = "disagree"
    NEUTRAL = "neutral"
    NO_POSITION = "no_position"  # declines, or says the evidence does not say
    BOTH = "both"  # presents conflicting positions without choosing

    @property
    def committed(self) -> Stance | None:
        """The VAA stance this code commits to; None for no_position and both."""
        return _COMMITTED.get(self)

    def matches(self, stance: Stance) -> bool:
        """Whether this code states exactly ``stance`` (no_position and both match nothing)."""
        return self.committed is stance


_COMMITTED = {
    CodedStance.AGREE: Stance.AGREE,
    CodedStance.DISAGREE: Stance.DISAGREE,
    CodedStance.NEUTRAL: Stance.NEUTRAL,
}


class StanceCodeRecord(BaseModel):
    """One coder seat's reading of one subject (a coder panel may repeat one endpoint)."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["answer", "probe"]
    subject_key: str  # EnvironmentItem.key for answers, ProbeAnswer.key for probes
    model: str  # the target model whose answer was coded
    sample_index: int  # the answer's sample index
    coder: str  # registry name of the coder endpoint
    panel_position: int
    stance: CodedStance | None  # None: missing (unreadable after a retry, or the call failed)
    outside_knowledge: bool | None  # relies on knowledge outside the context; None: cannot tell
    missing: str | None = None  # why ``stance`` is None
    call_key: str | None = None
    attempts: int = 1
    raw_output: str | None = None


class ProbeAnswer(BaseModel):
    """A target's closed-book answer to the party-position question (no context given)."""

    model_config = ConfigDict(frozen=True)

    election_id: str
    party_id: str
    statement_id: str
    model: str
    sample_index: int = 0
    language: str  # the language the question was asked in
    status: str  # "ok" or "error"
    text: str | None = None
    error: str | None = None
    call_key: str | None = None

    @property
    def key(self) -> str:
        """Unique within a run: election x party x statement (the model and sample are apart)."""
        return f"prior|{self.election_id}|{self.party_id}|{self.statement_id}"

    @property
    def ok(self) -> bool:
        return self.status == "ok" and bool(self.text and self.text.strip())


class SubjectCode(BaseModel):
    """The coder panel's majority on one subject."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["answer", "probe"]
    subject_key: str
    model: str
    sample_index: int
    stance: CodedStance | None  # None: no strict majority of readable seats, or all missing
    outside_knowledge: bool | None
    seats: int  # coder seats that read it
    missing_seats: int


def _strict_majority(values: list) -> object | None:
    """The value more than half of ``values`` share, else None."""
    if not values:
        return None
    value, count = Counter(values).most_common(1)[0]
    return value if count * 2 > len(values) else None


def majority_codes(records: Iterable[StanceCodeRecord]) -> list[SubjectCode]:
    """One code per subject x model x sample. The stance is the strict majority of all seats
    (a missing seat counts against every stance, so 1 readable seat of 3 gives no majority);
    ``outside_knowledge`` is the strict majority of the seats that could tell."""
    groups: dict[tuple, list[StanceCodeRecord]] = {}
    for record in records:
        key = (record.kind, record.subject_key, record.model, record.sample_index)
        groups.setdefault(key, []).append(record)
    codes = []
    for (kind, subject, model, sample), seats in sorted(groups.items()):
        stances = [seat.stance for seat in seats]
        stance = _strict_majority(stances)
        told = [seat.outside_knowledge for seat in seats if seat.outside_knowledge is not None]
        codes.append(
            SubjectCode(
                kind=kind,
                subject_key=subject,
                model=model,
                sample_index=sample,
                stance=stance,
                outside_knowledge=_strict_majority(told),
                seats=len(seats),
                missing_seats=sum(s is None for s in stances),
            )
        )
    return codes

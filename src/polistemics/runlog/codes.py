"""What the stance coder produced (``stance_codes.jsonl``): one ``StanceCodeRecord`` per coder
seat and subject, the contract between the run stages and the mechanism analyses (issue 16).

A *subject* is what is coded: a target model's answer to an environment item (``kind="answer"``,
``subject_key`` = ``EnvironmentItem.key``) or a target's closed-book probe answer
(``kind="probe"``, ``subject_key`` = ``ProbeAnswer.key``).
"""

from __future__ import annotations

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

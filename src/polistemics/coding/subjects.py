"""What the stance coder reads: one answer (or closed-book probe answer) and what it was about."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class CodingSubject(BaseModel):
    """One answer to code, with the party, statement and context its answerer was given.

    ``context`` is ``None`` for a closed-book probe (the model was asked with no context at all),
    an empty tuple for an Absent item (the model was told no evidence was found), and the chunk
    texts in the order the answerer saw them otherwise. ``party_name`` is the name the answerer
    saw (an anonymised label in the anonymised variant).
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["answer", "probe"]
    subject_key: str  # EnvironmentItem.key for answers, ProbeAnswer.key for probes
    model: str  # the target model whose answer this is
    sample_index: int
    party_name: str
    statement_text: str
    answer_text: str
    language: str  # the answer's language, as a name or a code ("German", "de")
    context: tuple[str, ...] | None = None
    # A pushback turn's second answer (issue 30): the first answer and the user's follow-up it
    # replies to; None for a single-turn answer.
    conversation: tuple[str, str] | None = None

    @property
    def earlier_texts(self) -> tuple[str, ...]:
        """The target's own earlier text the coder is shown (the first answer), if any."""
        return (self.conversation[0],) if self.conversation is not None else ()

    @property
    def closed_book(self) -> bool:
        return self.context is None

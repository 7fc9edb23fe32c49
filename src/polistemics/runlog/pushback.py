"""Pushback turns (issue 30, item 2): a scripted second user turn after a target's first answer,
and the target's second answer with the whole conversation in view.

``PushbackTurn`` (``pushback.jsonl``) is one conversation: the item, the pressure the follow-up
applied, the stance it (a false correction or an appeal to authority) claimed or (a bare "Are
you sure?", a demand for a plain yes or no) left unsaid, the conversation state the second call
was made with (the first answer's text and call key, the follow-up as sent) and the second
answer. The second answer's verdicts (``pushback_judges.jsonl``) are ``JudgeVerdictRecord``s and
its and the first answer's stance codes (``pushback_codes.jsonl``) ``StanceCodeRecord``s, the
second answer's under ``PushbackTurn.subject_key``. None of them reaches the scores.
"""

from __future__ import annotations

from enum import Enum

from polistemics.records import Stance
from polistemics.runlog.answers import Answer

# Subject key suffix of a second answer (stance codes, analyses): "<item key>|pushback".
PUSHBACK_SUFFIX = "|pushback"


class Pressure(str, Enum):
    """The four pressure types of issue 30 (templates ``prompts/pushback_<value>.txt``)."""

    FALSE_CORRECTION = "false_correction"  # (a) claims the opposite stance
    AUTHORITY = "authority"  # (b) "a journalist told me..." the opposite stance
    ARE_YOU_SURE = "are_you_sure"  # (c) a bare "Are you sure?"
    PLAIN_ANSWER = "plain_answer"  # (d) stop hedging, a plain yes or no

    @property
    def claims_stance(self) -> bool:
        """Whether the follow-up states the false stance (a, b) or none (c, d)."""
        return self in (Pressure.FALSE_CORRECTION, Pressure.AUTHORITY)


class PushbackTurn(Answer):
    """One target's second answer to one item after a scripted follow-up.

    The second answer is an ``Answer`` (its fields, ``reasoning_tokens`` included, are
    ``Answer``'s own, read from the call as every answer's is); ``item_key``, ``model`` and
    ``sample_index`` are the first turn's. A line written before ``reasoning_tokens`` was kept
    reads with 0, as an ``Answer`` line does."""

    pressure: Pressure
    # The stance a capitulating second answer adopts (docs/pushback.md, "The false stance"):
    # the opposite of the reference stance; stated in the follow-up only for (a) and (b).
    false_stance: Stance
    # Conversation state: what the second call was sent after the first turn's prompt.
    first_call_key: str | None
    first_text: str
    follow_up: str

    @property
    def subject_key(self) -> str:
        """The second answer's key among stance codes: the item key with ``|pushback``."""
        return self.item_key + PUSHBACK_SUFFIX

    @property
    def second_answer(self) -> Answer:
        """The second answer alone, as an ``Answer`` record."""
        return Answer.model_validate(self.model_dump(include=set(Answer.model_fields)))


def is_pushback_key(key: str) -> bool:
    return key.endswith(PUSHBACK_SUFFIX)

"""What the judge panel recorded: ``judges.jsonl`` (``JudgeVerdictRecord``, one per answer x
judge seat x rubric) and ``judge_repeats.jsonl`` (``RepeatVerdictRecord``, repeat judging)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from polistemics.conditions import Environment
from polistemics.rubrics import Rubric


class JudgeVerdictRecord(BaseModel):
    """One judge's verdicts on one answer for one rubric."""

    model_config = ConfigDict(frozen=True)

    item_key: str
    environment: Environment
    model: str  # the target model whose answer was judged
    sample_index: int  # the answer's sample index
    rubric: Rubric
    judge: str  # registry name of the judge endpoint
    panel_position: int  # the judge's place in the panel (a panel may repeat one endpoint)
    call_key: str | None  # the last call made
    attempts: int
    raw_output: str | None  # text of the last call
    parsed: bool
    error: str | None = None  # the call's error, when it failed
    says_yes: dict[str, bool | None]  # sub-question key -> verdict (None: missing), App. F order


class RepeatVerdictRecord(JudgeVerdictRecord):
    """A judge's verdicts on a repeat call (``repeat`` >= 1); the panel's own call is repeat 0."""

    repeat: int

"""The comparison task's model calls, made by the tasks' shared calls and coder
(``tasks.calls``, ``tasks.party_coder``): answers (``comparison_answer``), the coder panel's
per-party readings (``comparison_code``) and the judge panel's verdicts (``comparison_judge``)."""

from __future__ import annotations

from collections.abc import Sequence

from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.tasks import gather_or_cancel
from polistemics.llm.types import Completer
from polistemics.runlog import Answer, JudgeVerdictRecord
from polistemics.runlog.comparison import ComparisonItem
from polistemics.runlog.navigation import NavigationCodeRecord
from polistemics.tasks.calls import answer_items_with, judge_answers_with
from polistemics.tasks.comparison.prompt import (
    coder_messages,
    comparison_messages,
    judge_messages,
    judged_rubrics,
)
from polistemics.tasks.party_coder import code_call

ANSWER_STAGE = "comparison_answer"
CODE_STAGE = "comparison_code"
JUDGE_STAGE = "comparison_judge"


async def answer_items(
    completer: Completer,
    targets: Sequence[ModelEndpoint],
    items: Sequence[ComparisonItem],
    samples: int = 1,
) -> list[Answer]:
    return await answer_items_with(
        completer, targets, items, samples, messages_of=comparison_messages, stage=ANSWER_STAGE
    )


async def code_answers(
    completer: Completer,
    coders: Sequence[ModelEndpoint],
    pairs: Sequence[tuple[ComparisonItem, Answer]],
) -> list[NavigationCodeRecord]:
    jobs = [
        code_call(
            completer,
            coder,
            position,
            coder_messages(item, answer.text or ""),
            answer,
            stage=CODE_STAGE,
        )
        for item, answer in pairs
        for position, coder in enumerate(coders)
    ]
    return list(await gather_or_cancel(jobs))


async def judge_answers(
    completer: Completer,
    judges: Sequence[ModelEndpoint],
    pairs: Sequence[tuple[ComparisonItem, Answer]],
) -> list[JudgeVerdictRecord]:
    return await judge_answers_with(
        completer,
        judges,
        pairs,
        rubrics_of=judged_rubrics,
        messages_of=judge_messages,
        stage=JUDGE_STAGE,
    )

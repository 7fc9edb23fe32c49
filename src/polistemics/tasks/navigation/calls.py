"""The navigation task's model calls: answers (``navigation_answer``) and the judge panel's
verdicts (``navigation_judge``), made by the tasks' shared calls (``tasks.calls``: cached,
resumable, one retry for an unreadable verdict reply as the party-position judges do)."""

from __future__ import annotations

from collections.abc import Sequence

from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.types import Completer
from polistemics.runlog import Answer, JudgeVerdictRecord
from polistemics.runlog.navigation import NavigationItem
from polistemics.tasks.calls import answer_items_with, judge_answers_with
from polistemics.tasks.navigation.prompt import judge_messages, judged_rubrics, navigation_messages

ANSWER_STAGE = "navigation_answer"
JUDGE_STAGE = "navigation_judge"


async def answer_items(
    completer: Completer,
    targets: Sequence[ModelEndpoint],
    items: Sequence[NavigationItem],
    samples: int = 1,
) -> list[Answer]:
    return await answer_items_with(
        completer, targets, items, samples, messages_of=navigation_messages, stage=ANSWER_STAGE
    )


async def judge_answers(
    completer: Completer,
    judges: Sequence[ModelEndpoint],
    pairs: Sequence[tuple[NavigationItem, Answer]],
) -> list[JudgeVerdictRecord]:
    return await judge_answers_with(
        completer,
        judges,
        pairs,
        rubrics_of=judged_rubrics,
        messages_of=judge_messages,
        stage=JUDGE_STAGE,
    )

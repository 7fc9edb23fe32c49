"""The navigation task's model calls: answers (``navigation_answer``) and the judge panel's
verdicts (``navigation_judge``), made by the tasks' shared calls (``tasks.calls``: cached,
resumable, one retry for an unreadable verdict reply as the party-position judges do)."""

from __future__ import annotations

from collections.abc import Sequence

from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.tasks import gather_or_cancel
from polistemics.llm.types import Completer
from polistemics.rubrics import Rubric
from polistemics.runlog import Answer, JudgeVerdictRecord
from polistemics.runlog.navigation import NavigationItem
from polistemics.tasks.calls import answer_call, judge_call
from polistemics.tasks.navigation.prompt import judge_messages, judged_rubrics, navigation_messages

ANSWER_STAGE = "navigation_answer"
JUDGE_STAGE = "navigation_judge"


async def answer_one(
    completer: Completer, target: ModelEndpoint, item: NavigationItem, sample_index: int
) -> Answer:
    return await answer_call(
        completer,
        target,
        navigation_messages(item),
        item_key=item.key,
        sample_index=sample_index,
        stage=ANSWER_STAGE,
    )


async def answer_items(
    completer: Completer,
    targets: Sequence[ModelEndpoint],
    items: Sequence[NavigationItem],
    samples: int = 1,
) -> list[Answer]:
    jobs = [
        answer_one(completer, target, item, s)
        for item in items
        for target in targets
        for s in range(samples)
    ]
    return list(await gather_or_cancel(jobs))


async def judge_one(
    completer: Completer,
    judge: ModelEndpoint,
    position: int,
    item: NavigationItem,
    answer: Answer,
    rubric: Rubric,
) -> JudgeVerdictRecord:
    messages, keys = judge_messages(item, answer.text or "", rubric)
    return await judge_call(
        completer,
        judge,
        position,
        messages,
        keys,
        answer=answer,
        environment=item.environment,
        rubric=rubric,
        stage=JUDGE_STAGE,
    )


async def judge_answers(
    completer: Completer,
    judges: Sequence[ModelEndpoint],
    pairs: Sequence[tuple[NavigationItem, Answer]],
) -> list[JudgeVerdictRecord]:
    jobs = [
        judge_one(completer, judge, position, item, answer, rubric)
        for item, answer in pairs
        if answer.ok
        for rubric in judged_rubrics(item)
        for position, judge in enumerate(judges)
    ]
    return list(await gather_or_cancel(jobs))

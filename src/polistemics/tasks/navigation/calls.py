"""The navigation task's model calls: answers (``navigation_answer``) and the judge panel's
verdicts (``navigation_judge``), through the client layer (cached, resumable), one retry for an
unreadable verdict reply as the party-position judges do (``judging.panel``)."""

from __future__ import annotations

from collections.abc import Sequence

from polistemics.conditions import Environment
from polistemics.judging.panel import call_index, read_verdicts
from polistemics.judging.planted import planted_verdicts
from polistemics.judging.prompt import (
    VERDICT_SCHEMA_MODES,
    verdict_json_schema,
    verdict_schema,
)
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.tasks import gather_or_cancel
from polistemics.llm.types import Completer, Message
from polistemics.rubrics import Rubric
from polistemics.runlog import Answer, JudgeVerdictRecord
from polistemics.runlog.navigation import NavigationItem
from polistemics.tasks.navigation.prompt import judge_messages, judged_rubrics, navigation_messages

ANSWER_STAGE = "navigation_answer"
JUDGE_STAGE = "navigation_judge"
MAX_ATTEMPTS = 2
POSSIBLY_PLANTED = "possibly planted"


async def answer_one(
    completer: Completer, target: ModelEndpoint, item: NavigationItem, sample_index: int
) -> Answer:
    return await answer_with(
        completer, target, item.key, navigation_messages(item), sample_index, ANSWER_STAGE
    )


async def answer_with(
    completer: Completer,
    target: ModelEndpoint,
    item_key: str,
    messages: list[Message],
    sample_index: int,
    stage: str,
) -> Answer:
    """One answer of a task's item (its messages built by the task), recorded as ``Answer``."""
    result = await completer.complete(target, messages, stage=stage, sample_index=sample_index)
    text = result.text if result.ok else None
    return Answer(
        item_key=item_key,
        model=target.name,
        sample_index=sample_index,
        status="ok" if result.ok else "error",
        text=text,
        error=None if result.ok else (result.error or "call failed"),
        input_tokens=result.input_tokens,
        output_tokens=result.output_tokens,
        empty=result.ok and not (text or "").strip(),
        call_key=result.key,
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
    return await judge_with(
        completer, judge, position, (item.key, item.environment), messages, keys, answer, rubric
    )


async def judge_with(
    completer: Completer,
    judge: ModelEndpoint,
    position: int,
    item: tuple[str, Environment],
    messages: list[Message],
    keys: tuple[str, ...],
    answer: Answer,
    rubric: Rubric,
    stage: str = JUDGE_STAGE,
) -> JudgeVerdictRecord:
    """One judge seat's verdicts on one answer of a task's item (``item``: its key and
    environment) under one rubric, its messages built by the task; one retry for an unreadable
    reply, and a reply repeating verdicts planted in the answer refused."""
    text = answer.text or ""
    item_key, environment = item
    shaped = judge.structured_output in VERDICT_SCHEMA_MODES
    if judge.structured_output == "none":
        schema = None
    else:
        schema = verdict_schema(len(keys)) if shaped else verdict_json_schema(len(keys))
    planted = planted_verdicts((text,))
    verdicts = None
    refused = False
    attempts = 0
    result = None
    while attempts < MAX_ATTEMPTS:
        result = await completer.complete(
            judge,
            messages,
            stage=stage,
            sample_index=call_index(0, attempts),
            json_schema=schema,
        )
        attempts += 1
        if not result.ok:
            refused = False
            break
        verdicts = read_verdicts(result.text, len(keys), (text,), shaped)
        seen = verdicts
        if seen is None and planted:
            seen = read_verdicts(result.text, len(keys), (), shaped)
        refused = seen is not None and planted.matches(seen)
        if refused:
            verdicts = None
        elif verdicts is not None:
            break
    assert result is not None
    error = None if result.ok else (result.error or "call failed")
    return JudgeVerdictRecord(
        item_key=item_key,
        environment=environment,
        model=answer.model,
        sample_index=answer.sample_index,
        rubric=rubric,
        judge=judge.name,
        panel_position=position,
        call_key=result.key,
        attempts=attempts,
        raw_output=result.text,
        parsed=verdicts is not None,
        error=POSSIBLY_PLANTED if refused else error,
        says_yes=dict(zip(keys, verdicts, strict=True)) if verdicts else dict.fromkeys(keys),
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

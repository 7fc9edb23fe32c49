"""The model calls every task beyond the paper's makes, whatever its prompts: one answer per item,
target and sample, and one judge call per answer, rubric and judge seat, through the client layer
(cached, resumable). An unreadable verdict reply is asked once more, as the party-position judges
do (``judging.panel``), and a reply that repeats verdicts the answer itself plants is refused.

Each task builds its own messages and names its own call stages (``<task>_answer``,
``<task>_judge``); this module only makes the calls and records them (``runlog.Answer``,
``runlog.JudgeVerdictRecord``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from polistemics.conditions import Environment
from polistemics.judging.panel import call_index, read_verdicts
from polistemics.judging.planted import planted_verdicts
from polistemics.judging.prompt import VERDICT_SCHEMA_MODES, verdict_json_schema, verdict_schema
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.tasks import gather_or_cancel
from polistemics.llm.types import Completer, Message
from polistemics.rubrics import Rubric
from polistemics.runlog import Answer, JudgeVerdictRecord

MAX_ATTEMPTS = 2
POSSIBLY_PLANTED = "possibly planted"


async def answer_call(
    completer: Completer,
    target: ModelEndpoint,
    messages: list[Message],
    *,
    item_key: str,
    sample_index: int,
    stage: str,
) -> Answer:
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


async def judge_call(
    completer: Completer,
    judge: ModelEndpoint,
    position: int,
    messages: list[Message],
    keys: tuple[str, ...],
    *,
    answer: Answer,
    environment: Environment,
    rubric: Rubric,
    stage: str,
) -> JudgeVerdictRecord:
    """One judge seat's verdicts on one answer for one rubric (``keys``: the sub-questions the
    verdicts map back to, in the order the prompt lists them)."""
    text = answer.text or ""
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
        item_key=answer.item_key,
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


class JudgedItem(Protocol):
    """What the shared loops read of a task's item: its key and its environment."""

    @property
    def key(self) -> str: ...

    @property
    def environment(self) -> Environment: ...


Item = TypeVar("Item", bound=JudgedItem)


async def answer_items_with(
    completer: Completer,
    targets: Sequence[ModelEndpoint],
    items: Sequence[Item],
    samples: int,
    *,
    messages_of: Callable[[Item], list[Message]],
    stage: str,
) -> list[Answer]:
    """Every target's answers to every item, ``samples`` each (item, then target, then sample)."""
    jobs = [
        answer_call(
            completer,
            target,
            messages_of(item),
            item_key=item.key,
            sample_index=s,
            stage=stage,
        )
        for item in items
        for target in targets
        for s in range(samples)
    ]
    return list(await gather_or_cancel(jobs))


async def judge_answers_with(
    completer: Completer,
    judges: Sequence[ModelEndpoint],
    pairs: Sequence[tuple[Item, Answer]],
    *,
    rubrics_of: Callable[[Item], Sequence[Rubric]],
    messages_of: Callable[[Item, str, Rubric], tuple[list[Message], tuple[str, ...]]],
    stage: str,
) -> list[JudgeVerdictRecord]:
    """Every judge seat's verdicts on every answer that came back, rubric by rubric (answer, then
    rubric, then seat); ``messages_of`` builds a rubric's messages and the sub-question keys its
    verdicts map back to."""
    jobs = []
    for item, answer in pairs:
        if not answer.ok:
            continue
        for rubric in rubrics_of(item):
            messages, keys = messages_of(item, answer.text or "", rubric)
            jobs.extend(
                judge_call(
                    completer,
                    judge,
                    position,
                    messages,
                    keys,
                    answer=answer,
                    environment=item.environment,
                    rubric=rubric,
                    stage=stage,
                )
                for position, judge in enumerate(judges)
            )
    return list(await gather_or_cancel(jobs))

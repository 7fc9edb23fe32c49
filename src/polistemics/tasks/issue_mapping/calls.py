"""The issue-mapping task's model calls, through the tasks' call helpers (``tasks.calls``) (cached,
resumable, one retry for an unreadable reply, planted verdicts refused): answers
(``issue_mapping_answer``), the per-party coder on each conflict (``issue_mapping_code``, the
navigation coder's prompts) and the judge panel (``issue_mapping_judge``)."""

from __future__ import annotations

from collections.abc import Sequence

from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.tasks import gather_or_cancel
from polistemics.llm.types import Completer
from polistemics.runlog import Answer, JudgeVerdictRecord
from polistemics.runlog.issue_mapping import IssueMappingItem
from polistemics.runlog.navigation import NavigationCodeRecord
from polistemics.tasks.calls import answer_items_with, judge_answers_with
from polistemics.tasks.issue_mapping.metrics import conflict_key, conflict_view
from polistemics.tasks.issue_mapping.prompt import answer_messages, judge_messages, judged_rubrics
from polistemics.tasks.navigation.coder import code_answer

ANSWER_STAGE = "issue_mapping_answer"
CODE_STAGE = "issue_mapping_code"
JUDGE_STAGE = "issue_mapping_judge"


async def answer_items(
    completer: Completer,
    targets: Sequence[ModelEndpoint],
    items: Sequence[IssueMappingItem],
    samples: int = 1,
) -> list[Answer]:
    return await answer_items_with(
        completer, targets, items, samples, messages_of=answer_messages, stage=ANSWER_STAGE
    )


async def code_answers(
    completer: Completer,
    coders: Sequence[ModelEndpoint],
    pairs: Sequence[tuple[IssueMappingItem, Answer]],
) -> list[NavigationCodeRecord]:
    """Each answer read once per conflict and coder seat."""
    jobs = [
        code_answer(
            completer,
            coder,
            position,
            conflict_view(item, statement),
            answer,
            stage=CODE_STAGE,
            item_key=conflict_key(item, statement),
        )
        for item, answer in pairs
        for statement in item.conflicts
        for position, coder in enumerate(coders)
    ]
    return list(await gather_or_cancel(jobs))


async def judge_answers(
    completer: Completer,
    judges: Sequence[ModelEndpoint],
    pairs: Sequence[tuple[IssueMappingItem, Answer]],
) -> list[JudgeVerdictRecord]:
    return await judge_answers_with(
        completer,
        judges,
        pairs,
        rubrics_of=judged_rubrics,
        messages_of=judge_messages,
        stage=JUDGE_STAGE,
    )

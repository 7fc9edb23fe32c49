"""The navigation task's prompts: the answerer's (the paper's system message, App. C Fig. 5,
unchanged; our own question, ``navigation_user``) and the judge's (``navigation_judge_*``, Fig.
12's words for several parties, with the focus party's property of context)."""

from __future__ import annotations

from polistemics import prompts
from polistemics.conditions import ABSENT_SENTINEL
from polistemics.judging.prompt import numbered_questions, shown_answer
from polistemics.llm.types import Message
from polistemics.rubrics import Rubric
from polistemics.runlog.items import Chunk
from polistemics.runlog.navigation import NavigationItem
from polistemics.tasks.definition import TaskSubQuestion
from polistemics.tasks.navigation.context import context_text, party_list
from polistemics.tasks.navigation.questions import (
    NAVIGATION_PROPERTY_OF_CONTEXT,
    NAVIGATION_QUESTIONS,
)


def navigation_messages(item: NavigationItem) -> list[Message]:
    system = prompts.render(
        "task_system", language=item.output_language, context=context_text(item)
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": query(item)}]


def query(item: NavigationItem) -> str:
    return prompts.render(
        "navigation_user", statement_text=item.statement_text, party_names=party_list(item)
    )


def active_questions(item: NavigationItem, rubric: Rubric) -> tuple[TaskSubQuestion, ...]:
    return tuple(
        sq for sq in NAVIGATION_QUESTIONS if sq.rubric is rubric and sq.is_active(item.environment)
    )


def judged_rubrics(item: NavigationItem) -> tuple[Rubric, ...]:
    return tuple(
        dict.fromkeys(sq.rubric for sq in NAVIGATION_QUESTIONS if sq.is_active(item.environment))
    )


def labelled_chunks(item: NavigationItem) -> list[tuple[str, Chunk]]:
    """Each chunk of the context with the label the judge sees on it."""
    names = {p.party_id: p.party_name for p in item.parties}
    focus = item.focus.party_name
    labelled = []
    for chunk, party_id in zip(item.chunks, item.chunk_parties(), strict=True):
        if chunk.role == "distractor":
            label = "[DISTRACTOR]"
        else:
            # Labelled by whose evidence the passage presents: Contradictory's opposing passage,
            # borrowed from another party, is about the focus party (its text says so).
            label = f"[TARGET: {names.get(party_id, focus)}]"
        labelled.append((label, chunk))
    return labelled


def judge_context(item: NavigationItem) -> str:
    """The context as the judge sees it: each chunk labelled with its role and party."""
    lines = [
        f"[{n}] {label} {chunk.text}"
        for n, (label, chunk) in enumerate(labelled_chunks(item), start=1)
    ]
    return "\n".join(lines) if lines else ABSENT_SENTINEL


def filled_questions(item: NavigationItem, rubric: Rubric) -> list[TaskSubQuestion]:
    """The rubric's sub-questions active for the item, the focus party named in them."""
    focus = item.focus.party_name
    return [
        TaskSubQuestion(
            sq.code,
            sq.key,
            sq.rubric,
            sq.title,
            sq.question.replace("{focus_party}", focus),
            sq.active_in,
            sq.yes_passes_in,
        )
        for sq in active_questions(item, rubric)
    ]


def property_text(item: NavigationItem) -> str:
    """What the judge is told about the item's context (the focus party named)."""
    return NAVIGATION_PROPERTY_OF_CONTEXT[item.environment].replace(
        "{focus_party}", item.focus.party_name
    )


def judge_messages(
    item: NavigationItem, answer_text: str, rubric: Rubric
) -> tuple[list[Message], tuple[str, ...]]:
    """The messages of one judge call and the sub-question keys its verdicts map back to."""
    filled = filled_questions(item, rubric)
    system = prompts.render(
        "navigation_judge_system",
        dimension_name=rubric.label,
        dimension_definition=rubric.definition,
        property_of_context=property_text(item),
        questions=numbered_questions(filled),
    )
    user = prompts.render(
        "navigation_judge_user",
        query=query(item),
        context=judge_context(item),
        answer=shown_answer(answer_text),
    )
    messages: list[Message] = [
        {"role": "system", "content": system},
        {"role": "user", "content": user},
    ]
    return messages, tuple(sq.key for sq in filled)

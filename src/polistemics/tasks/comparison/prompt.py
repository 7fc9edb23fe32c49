"""The comparison task's prompts: the answerer's (the paper's system message, App. C Fig. 5,
unchanged; our own question, ``comparison_user``), the per-party coder's
(``comparison_coder_*``) and the judge's (``comparison_judge_*``, Fig. 12's words for a pair of
parties, with the degraded side's property of context)."""

from __future__ import annotations

import re

from polistemics import prompts
from polistemics.coding.prompt import fence_code
from polistemics.conditions import ABSENT_SENTINEL
from polistemics.judging.prompt import numbered_questions, shown_answer
from polistemics.llm.types import Message
from polistemics.rubrics import Rubric
from polistemics.runlog.comparison import ComparisonItem
from polistemics.tasks.comparison.questions import (
    COMPARISON_PROPERTY_OF_CONTEXT,
    COMPARISON_QUESTIONS,
)
from polistemics.tasks.definition import TaskSubQuestion


def context_text(item: ComparisonItem) -> str:
    """Chunks numbered ``[1] ...`` to ``[N] ...``; the sentinel when there is none."""
    if not item.chunks:
        return ABSENT_SENTINEL
    return "\n".join(f"[{n}] {chunk.text}" for n, chunk in enumerate(item.chunks, start=1))


def party_list(item: ComparisonItem) -> str:
    return ", ".join(p.party_name for p in item.parties)


def comparison_messages(item: ComparisonItem) -> list[Message]:
    system = prompts.render(
        "task_system", language=item.output_language, context=context_text(item)
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": query(item)}]


def query(item: ComparisonItem) -> str:
    first, second = item.parties
    return prompts.render(
        "comparison_user",
        first_party=first.party_name,
        second_party=second.party_name,
        statement_text=item.statement_text,
    )


def coder_messages(item: ComparisonItem, answer_text: str) -> list[Message]:
    user = prompts.render(
        "comparison_coder_user",
        statement_text=item.statement_text,
        party_names=party_list(item),
        language=item.output_language,
        fence=fence_code(answer_text, "answer"),
        answer=answer_text,
    )
    return [
        {"role": "system", "content": prompts.load("comparison_coder_system")},
        {"role": "user", "content": user},
    ]


def active_questions(item: ComparisonItem, rubric: Rubric) -> tuple[TaskSubQuestion, ...]:
    return tuple(
        sq for sq in COMPARISON_QUESTIONS if sq.rubric is rubric and sq.is_active(item.environment)
    )


def judged_rubrics(item: ComparisonItem) -> tuple[Rubric, ...]:
    return tuple(
        dict.fromkeys(sq.rubric for sq in COMPARISON_QUESTIONS if sq.is_active(item.environment))
    )


_NAMES = re.compile(r"\{(first_party|second_party|degraded_party|intact_party)\}")


def fill(text: str, item: ComparisonItem) -> str:
    """The pair's names in a question or property of context (one pass: a party's name that
    itself contains "{...}" is left alone)."""
    first, second = item.parties
    names = {
        "first_party": first.party_name,
        "second_party": second.party_name,
        "degraded_party": item.degraded.party_name,
        "intact_party": item.intact.party_name,
    }
    return _NAMES.sub(lambda match: names[match.group(1)], text)


def judge_context(item: ComparisonItem) -> str:
    """The context as the judge sees it: each chunk labelled with its role and the party whose
    evidence it presents."""
    names = {p.party_id: p.party_name for p in item.parties}
    lines = []
    for n, (chunk, party_id) in enumerate(zip(item.chunks, item.about, strict=True), start=1):
        label = "[DISTRACTOR]" if chunk.role == "distractor" else f"[TARGET: {names[party_id]}]"
        lines.append(f"[{n}] {label} {chunk.text}")
    return "\n".join(lines) if lines else ABSENT_SENTINEL


def judge_messages(
    item: ComparisonItem, answer_text: str, rubric: Rubric
) -> tuple[list[Message], tuple[str, ...]]:
    """The messages of one judge call and the sub-question keys its verdicts map back to."""
    questions = active_questions(item, rubric)
    filled = [
        TaskSubQuestion(
            sq.code,
            sq.key,
            sq.rubric,
            sq.title,
            fill(sq.question, item),
            sq.active_in,
            sq.yes_passes_in,
        )
        for sq in questions
    ]
    system = prompts.render(
        "comparison_judge_system",
        dimension_name=rubric.label,
        dimension_definition=rubric.definition,
        property_of_context=fill(COMPARISON_PROPERTY_OF_CONTEXT[item.environment], item),
        questions=numbered_questions(filled),
    )
    user = prompts.render(
        "comparison_judge_user",
        query=query(item),
        context=judge_context(item),
        answer=shown_answer(answer_text),
    )
    messages: list[Message] = [
        {"role": "system", "content": system},
        {"role": "user", "content": user},
    ]
    return messages, tuple(sq.key for sq in questions)

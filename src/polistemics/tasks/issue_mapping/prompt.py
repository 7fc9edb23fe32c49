"""The issue-mapping task's prompts: the answerer's (the paper's system message, App. C Fig. 5,
unchanged, with the theme's statements as headings in the context; our own question,
``issue_mapping_user``) and the judge's (``issue_mapping_judge_system``, Fig. 12's words for a
theme; the user message is the navigation judge's QUERY / CONTEXT / ANSWER layout)."""

from __future__ import annotations

from polistemics import prompts
from polistemics.judging.prompt import numbered_questions, shown_answer
from polistemics.llm.types import Message
from polistemics.rubrics import Rubric
from polistemics.runlog.issue_mapping import IssueMappingItem
from polistemics.tasks.definition import TaskSubQuestion
from polistemics.tasks.issue_mapping.questions import (
    ISSUE_MAPPING_PROPERTY_OF_CONTEXT,
    ISSUE_MAPPING_QUESTIONS,
)


def _names(item: IssueMappingItem) -> dict[str, str]:
    return {p.party_id: p.party_name for p in item.parties}


def context_lines(item: IssueMappingItem, *, labelled: bool) -> list[str]:
    """Each statement as a heading, then its passages numbered ``[1]`` .. ``[N]`` across the
    whole context (labelled ``[TARGET: party]`` for the judge)."""
    names = _names(item)
    texts = {s.statement_id: s for s in item.statements}
    lines: list[str] = []
    current = None
    for n, (chunk, statement_id) in enumerate(
        zip(item.chunks, item.chunk_statements, strict=True), start=1
    ):
        if statement_id != current:
            current = statement_id
            statement = texts[statement_id]
            lines.append(f'Statement {statement.number}: "{statement.text}"')
        label = f"[TARGET: {names.get(chunk.party_id, chunk.party_id)}] " if labelled else ""
        lines.append(f"[{n}] {label}{chunk.text}")
    return lines


def answer_messages(item: IssueMappingItem) -> list[Message]:
    system = prompts.render(
        "task_system",
        language=item.output_language,
        context="\n".join(context_lines(item, labelled=False)),
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": query(item)}]


def query(item: IssueMappingItem) -> str:
    return prompts.render(
        "issue_mapping_user",
        theme=item.theme,
        party_names=", ".join(p.party_name for p in item.parties),
    )


def judged_rubrics(item: IssueMappingItem) -> tuple[Rubric, ...]:
    return tuple(
        dict.fromkeys(sq.rubric for sq in ISSUE_MAPPING_QUESTIONS if sq.is_active(item.environment))
    )


def active_questions(item: IssueMappingItem, rubric: Rubric) -> tuple[TaskSubQuestion, ...]:
    return tuple(
        sq
        for sq in ISSUE_MAPPING_QUESTIONS
        if sq.rubric is rubric and sq.is_active(item.environment)
    )


def property_text(item: IssueMappingItem) -> str:
    conflicts = "; ".join(f'Statement {s.number} ("{s.text}")' for s in item.conflicts)
    return ISSUE_MAPPING_PROPERTY_OF_CONTEXT.replace("{conflicts}", conflicts)


def judge_messages(
    item: IssueMappingItem, answer_text: str, rubric: Rubric
) -> tuple[list[Message], tuple[str, ...]]:
    """The messages of one judge call and the sub-question keys its verdicts map back to."""
    questions = active_questions(item, rubric)
    system = prompts.render(
        "issue_mapping_judge_system",
        dimension_name=rubric.label,
        dimension_definition=rubric.definition,
        property_of_context=property_text(item),
        questions=numbered_questions(questions),
    )
    user = prompts.render(
        "navigation_judge_user",
        query=query(item),
        context="\n".join(context_lines(item, labelled=True)),
        answer=shown_answer(answer_text),
    )
    messages: list[Message] = [
        {"role": "system", "content": system},
        {"role": "user", "content": user},
    ]
    return messages, tuple(sq.key for sq in questions)

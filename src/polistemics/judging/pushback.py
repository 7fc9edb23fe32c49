"""Judging a pushback turn's second answer (issue 30; docs/pushback.md, "What the judges see").

The same panel, rubrics, active sub-questions and property of context (Table 11) as the first
answer, and the same parsing, retry and planted-verdict rules (``judging.panel.judge_one``). Only
the prompt differs: ``judge_pushback_system`` / ``judge_pushback_user``, Fig. 12 with the
conversation added. The judges see the query, the labelled context, the FIRST ANSWER, the
FOLLOW-UP and the ANSWER under evaluation, and are told that the follow-up is not evidence.
Single-turn answers keep Fig. 12 verbatim (``judging.prompt``); judges on the rubric-last
prompt also get this one for second answers.

Both answers are the target's text, so both are hostile: each line of either that opens like a
section header of this prompt (the paper's, or FIRST ANSWER / FOLLOW-UP) is bracketed, and a
verdict list spelled out in either is refused as possibly planted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, partial

from polistemics.conditions import Environment
from polistemics.judging.panel import JudgeVerdicts, judge_one
from polistemics.judging.planted import PlantedVerdicts, planted_verdicts
from polistemics.judging.prompt import (
    JudgePrompt,
    JudgePromptError,
    _active_questions,
    _property_sentence,
    judge_context,
    judge_query,
    numbered_questions,
    shown_answer,
    verdict_json_schema,
)
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.tasks import gather_or_cancel
from polistemics.llm.types import Completer
from polistemics.prompts import render
from polistemics.records import Stance
from polistemics.rubrics import Rubric, active_rubrics
from polistemics.runlog import Answer, EnvironmentItem
from polistemics.runlog.pushback import PushbackTurn

STAGE = "pushback_judge"

# This prompt's own section headers, bracketed like the paper's (``judging.prompt``).
_TURN_HEADER = re.compile(
    r"""(?:^|(?<=[\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]))
        (?P<lead>[ \t>*#_`~"'“”‘’„«»\-]*)
        (?P<header>first\s+answer|follow[\s\-‐‑–]*up)
        (?P<colon>[ \t]*[:：﹕꞉])""",
    re.IGNORECASE | re.VERBOSE,
)


def shown_turn(text: str) -> str:
    """A target's text as this prompt shows it: every line imitating a section header of it
    (the paper's or this prompt's own) bracketed."""
    bracketed = shown_answer(text)
    return _TURN_HEADER.sub(lambda m: f"{m['lead']}[{m['header']}]{m['colon']}", bracketed)


@cache
def _system(rubric: Rubric, environment: Environment, expected_stance: Stance) -> str:
    return render(
        "judge_pushback_system",
        dimension_name=rubric.label,
        dimension_definition=rubric.definition,
        property_of_context=_property_sentence(environment, expected_stance),
        questions=numbered_questions(_active_questions(rubric, environment)),
    )


def build_pushback_prompt(item: EnvironmentItem, turn: PushbackTurn, rubric: Rubric) -> JudgePrompt:
    questions = _active_questions(rubric, item.environment)
    if not questions:
        raise JudgePromptError(
            f"item {item.key}: rubric '{rubric.value}' has no active sub-question in "
            f"environment '{item.environment.value}'"
        )
    answer = shown_turn(turn.text or "")
    user = render(
        "judge_pushback_user",
        query=judge_query(item),
        context=judge_context(item),
        first_answer=shown_turn(turn.first_text),
        follow_up=turn.follow_up,
        answer=answer,
    )
    system = _system(rubric, item.environment, item.judged_expected_stance)
    return JudgePrompt(
        messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
        sub_question_keys=tuple(sq.key for sq in questions),
        json_schema=verdict_json_schema(len(questions)),
        shown_answer=answer,
    )


def pushback_prompt_parts(
    item: EnvironmentItem, turn: PushbackTurn, rubric: Rubric
) -> tuple[JudgePrompt, tuple[str, ...], PlantedVerdicts]:
    """The prompt, the texts a judge may quote (both answers, as given and as shown) and the
    verdict lists either answer spells out."""
    prompt = build_pushback_prompt(item, turn, rubric)
    texts = (turn.text or "", turn.first_text)
    quoted = tuple(dict.fromkeys((*texts, *(shown_turn(text) for text in texts))))
    return prompt, quoted, planted_verdicts(quoted)


def as_answer(turn: PushbackTurn) -> Answer:
    """The second answer in the shape the panel records verdicts for."""
    return Answer(
        item_key=turn.item_key,
        model=turn.model,
        sample_index=turn.sample_index,
        status=turn.status,
        text=turn.text,
        error=turn.error,
        empty=turn.empty,
        call_key=turn.call_key,
    )


async def judge_second_answers(
    completer: Completer,
    judges: list[ModelEndpoint],
    pairs: Sequence[tuple[EnvironmentItem, PushbackTurn]],
) -> JudgeVerdicts:
    """Every judge seat on every active rubric of every ok second answer, in input order
    (turn, judge, rubric); failed or empty second answers are skipped and counted."""
    jobs = []
    skipped: dict[str, int] = {}
    for item, turn in pairs:
        if turn.item_key != item.key:
            raise ValueError(f"pushback turn for '{turn.item_key}' paired with item '{item.key}'")
        if not turn.ok:
            why = "error" if turn.status != "ok" else "empty"
            skipped[why] = skipped.get(why, 0) + 1
            continue
        answer = as_answer(turn)
        for rubric in active_rubrics(item.environment):
            parts = pushback_prompt_parts(item, turn, rubric)
            for position, judge in enumerate(judges):
                jobs.append(
                    partial(
                        judge_one,
                        completer,
                        judge,
                        position,
                        item,
                        answer,
                        rubric,
                        None,
                        parts=parts,
                        stage=STAGE,
                    )
                )
    records = await gather_or_cancel(job() for job in jobs)
    records.sort(
        key=lambda r: (r.item_key, r.model, r.sample_index, r.panel_position, r.rubric.value)
    )
    return JudgeVerdicts(records, skipped)

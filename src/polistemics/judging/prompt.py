"""The judge prompt (paper App. G, Fig. 12), filled for one answer and one rubric.

One call per rubric: the rubric's name and definition (Sec. 5), the environment's property of
context (Table 11), the rubric's sub-questions active in that environment (App. F) numbered
``1.`` .. ``n.``, and the query, labelled context and answer the judge must assess.

The template is the paper's text, unchanged. What goes into ``{answer}`` is the answer with one
deterministic change (``shown_answer``): a line that opens like one of the prompt's own section
headers ("QUERY:", "CONTEXT:", "ANSWER:", "Questions:", ...) gets that header bracketed
("[ANSWER]:"), so the answer cannot pass for the end of itself and a new prompt section. Only such
answers change, and with them their judge cache keys (docs/judge-parsing.md).

``variant="rubric-last"`` (an endpoint's opt-in ``judge_prompt``, never the default) is the same
words reordered for a serial local server: a system message shared by every call, then query,
context and answer, and only then the rubric's definition, property of context and questions.
Calls on one answer then share everything up to the rubric (docs/judge-prompt-rubric-last.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from polistemics.conditions import ABSENT_SENTINEL, PROPERTY_OF_CONTEXT, Environment
from polistemics.llm.types import Message
from polistemics.prompts import load, render, verdict_schema_template
from polistemics.records import Stance
from polistemics.rubrics import Rubric, SubQuestion, sub_questions
from polistemics.runlog.items import EnvironmentItem

VERDICT_WORDS = ("Yes", "No")
# The release's judge output modes ("native" JSON schema, "tool") get the per-question schema;
# local grammar / json_object judges keep the compact array form the demo was measured with.
VERDICT_SCHEMA_MODES = frozenset({"json_schema", "tool"})

JudgePromptVariant = Literal["paper", "rubric-last"]

# The section headers of Fig. 12 (system and user message), at the start of a line of the answer
# after blanks, markdown or quote marks; any line break Python knows counts, "\r" included.
_PROMPT_HEADER = re.compile(
    r"""(?:^|(?<=[\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]))
        (?P<lead>[ \t>*#_`~"'“”‘’„«»\-]*)
        (?P<header>query|context|answer|questions|instructions|dimension\s+definition)
        (?P<colon>[ \t]*[:：﹕꞉])""",
    re.IGNORECASE | re.VERBOSE,
)


class JudgePromptError(ValueError):
    """An item cannot be put before a judge (e.g. a rubric not judged in its environment)."""


@dataclass(frozen=True)
class JudgePrompt:
    """The messages of one judge call and the sub-question keys its verdicts map back to."""

    messages: list[Message]
    sub_question_keys: tuple[str, ...]  # verdict i (1-based in the prompt) is key [i - 1]
    json_schema: dict  # compact ``{"answers": [...]}`` form, for local grammar / json_object
    shown_answer: str  # the answer as the judge sees it (see ``shown_answer``)

    @property
    def n_questions(self) -> int:
        return len(self.sub_question_keys)

    @property
    def verdict_schema(self) -> dict:
        """One required Yes/No property per listed question, for json_schema and tool judges."""
        return verdict_schema(self.n_questions)

    def schema_for(self, structured_output: str) -> dict | None:
        """The schema a judge with this ``structured_output`` mode is sent (None: free text)."""
        if structured_output in VERDICT_SCHEMA_MODES:
            return self.verdict_schema
        return None if structured_output == "none" else self.json_schema


def build_judge_prompt(
    item: EnvironmentItem,
    answer_text: str,
    rubric: Rubric,
    variant: JudgePromptVariant = "paper",
) -> JudgePrompt:
    questions = _active_questions(rubric, item.environment)
    if not questions:
        raise JudgePromptError(
            f"item {item.key}: rubric '{rubric.value}' has no active sub-question in "
            f"environment '{item.environment.value}'"
        )
    answer = shown_answer(answer_text)
    if variant == "paper":
        system = _judge_system(rubric, item.environment, item.judged_expected_stance)
        user = render(
            "judge_user",
            query=judge_query(item),
            context=judge_context(item),
            answer=answer,
        )
    elif variant == "rubric-last":
        system = load("judge_rubric_last_system")
        user = render(
            "judge_rubric_last_user",
            query=judge_query(item),
            context=judge_context(item),
            answer=answer,
            dimension_name=rubric.label,
            dimension_definition=rubric.definition,
            property_of_context=property_of_context(item),
            questions=numbered_questions(questions),
        )
    else:
        raise JudgePromptError(f"unknown judge prompt variant '{variant}'")
    return JudgePrompt(
        messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
        sub_question_keys=tuple(sq.key for sq in questions),
        json_schema=verdict_json_schema(len(questions)),
        shown_answer=answer,
    )


def shown_answer(answer_text: str) -> str:
    """The answer with every line that imitates a prompt section header bracketed."""
    return _PROMPT_HEADER.sub(lambda m: f"{m['lead']}[{m['header']}]{m['colon']}", answer_text)


@cache
def _active_questions(rubric: Rubric, environment: Environment) -> tuple[SubQuestion, ...]:
    return tuple(sub_questions(rubric, environment))


@cache
def _judge_system(rubric: Rubric, environment: Environment, expected_stance: Stance) -> str:
    """The system message: the same for every item of an environment and expected stance."""
    return render(
        "judge_system",
        dimension_name=rubric.label,
        dimension_definition=rubric.definition,
        property_of_context=_property_sentence(environment, expected_stance),
        questions=numbered_questions(_active_questions(rubric, environment)),
    )


def judge_system_message(rubric: Rubric, environment: Environment, expected_stance: Stance) -> str:
    """The paper prompt's system message, shared by every call of a rubric, environment and
    expected stance (the prefix a provider's prompt cache can serve; ``--dry-run``'s estimate)."""
    return _judge_system(rubric, environment, expected_stance)


def judge_messages(item: EnvironmentItem, answer_text: str, rubric: Rubric) -> list[Message]:
    return build_judge_prompt(item, answer_text, rubric).messages


def property_of_context(item: EnvironmentItem) -> str:
    """Table 11's sentence for the item's environment, with the stance the judge should expect."""
    return _property_sentence(item.environment, item.judged_expected_stance)


def _property_sentence(environment: Environment, expected_stance: Stance) -> str:
    return PROPERTY_OF_CONTEXT[environment].replace("{expected_stance}", expected_stance.value)


def numbered_questions(questions: Sequence[SubQuestion]) -> str:
    return "\n".join(f"{i}. {sq.question}" for i, sq in enumerate(questions, start=1))


def judge_query(item: EnvironmentItem) -> str:
    """The task question exactly as the answerer saw it (Fig. 5, user message)."""
    return render("task_user", party_name=item.party_label, statement_text=item.statement_text)


def judge_context(item: EnvironmentItem) -> str:
    """The answerer's context with each chunk labelled ``[TARGET]`` or ``[DISTRACTOR]``.

    Chunks keep the answerer's numbering ``[1]``..``[N]`` so citations in the answer still point
    at the right chunk. Absent shows the sentinel the answerer saw instead of any evidence.
    """
    if item.environment is Environment.ABSENT:
        if item.chunks:
            raise JudgePromptError(
                f"item {item.key}: an Absent item must have no chunks, found {len(item.chunks)}"
            )
        return ABSENT_SENTINEL
    if not item.chunks:
        raise JudgePromptError(
            f"item {item.key}: environment '{item.environment.value}' needs at least one chunk"
        )
    return "\n".join(
        f"[{i}] [{chunk.role.upper()}] {chunk.text}" for i, chunk in enumerate(item.chunks, start=1)
    )


def verdict_json_schema(n_questions: int) -> dict:
    """Structured-output schema: exactly ``n_questions`` verdicts, each "Yes" or "No"."""
    return {
        "type": "object",
        "properties": {
            "answers": {
                "type": "array",
                "items": {"type": "string", "enum": list(VERDICT_WORDS)},
                "minItems": n_questions,
                "maxItems": n_questions,
            }
        },
        "required": ["answers"],
        "additionalProperties": False,
    }


def verdict_property_names(n_questions: int) -> tuple[str, ...]:
    """The verdict schema's property for question 1..n, in order (``q1``, ``q2``, ...)."""
    pattern = verdict_schema_template()["property_name"]
    return tuple(pattern.replace("{number}", str(i)) for i in range(1, n_questions + 1))


def verdict_schema(n_questions: int) -> dict:
    """The template ``prompts/judge_verdict_schema.json`` filled for ``n_questions`` questions.

    Question ``i`` of the prompt's list becomes the required property named by the template's
    ``property_name`` with ``{number}`` = i, whose schema is the template's ``property`` (a
    "Yes"/"No" enum) with ``{number}`` filled in its strings. No other property is allowed.
    """
    if n_questions < 1:
        raise ValueError(f"a verdict schema needs at least one question, got {n_questions}")
    template = verdict_schema_template()
    schema = template["schema"]
    names = verdict_property_names(n_questions)
    schema["properties"] = {
        name: _filled(template["property"], str(number))
        for number, name in enumerate(names, start=1)
    }
    schema["required"] = list(names)
    return schema


def _filled(value: object, number: str) -> object:
    if isinstance(value, str):
        return value.replace("{number}", number)
    if isinstance(value, dict):
        return {k: _filled(v, number) for k, v in value.items()}
    if isinstance(value, list):
        return [_filled(v, number) for v in value]
    return value

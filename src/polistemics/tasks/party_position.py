"""The paper's task, ``party_position`` (Sec. 4, App. B): "What is party P's position on
statement S?", described as a ``Task``. Nothing here changes how it runs: its items are the
environment builders' (``environments.build``), its prompts the paper's (App. C), its
sub-questions App. F's (``rubrics``), its checks the stance coder's mechanism analyses."""

from __future__ import annotations

from polistemics.conditions import ALL_ENVIRONMENTS, Environment
from polistemics.environments.build import build_environments
from polistemics.rubrics import SUB_QUESTIONS, SubQuestion
from polistemics.tasks.definition import Task, TaskSubQuestion
from polistemics.tasks.names import PARTY_POSITION


def _as_task_question(sq: SubQuestion) -> TaskSubQuestion:
    return TaskSubQuestion(
        code=sq.code,
        key=sq.key,
        rubric=sq.rubric,
        title=sq.title,
        question=sq.question,
        active_in=frozenset(env for env in ALL_ENVIRONMENTS if sq.is_active(env)),
        yes_passes_in=frozenset(
            env for env in ALL_ENVIRONMENTS if sq.is_active(env) and sq.yes_passes(env)
        ),
    )


PARTY_POSITION_TASK = Task(
    name=PARTY_POSITION,
    label="Party position",
    signature="T_party-pos: (p, s | C) -> position",
    example="What is [Party]'s position on rent control?",
    prompt_templates=("task_system", "task_user"),
    environments={
        Environment.BASELINE: "the party's standardised evidence",
        Environment.ABSENT: "the evidence removed (the sentinel context)",
        Environment.VAGUE: "the evidence rewritten in one of five vagueness modes",
        Environment.CONTRADICTORY: "the closest opposing party's passage added, about the party",
        Environment.NOISY: "the evidence buried mid-context among four distractors",
        Environment.COUNTERFACTUAL: "the evidence replaced by the farthest opposing party's",
    },
    sub_questions=tuple(_as_task_question(sq) for sq in SUB_QUESTIONS),
    checks=(
        "stance coder: parametric fallback (Absent), first-chunk choice (Contradictory), "
        "evidence against prior (Counterfactual), closed-book prior accuracy",
    ),
    build_items=build_environments,
    paper=True,
)

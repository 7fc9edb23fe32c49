"""The comparison task (issue 29, item 3): "How do A and B differ on statement S?", asked of
seeded pairs of parties (pairs that differ and pairs that agree) over their labelled evidence,
one side of the pair degraded by the information environment. docs/tasks.md gives its prompts,
sub-questions and reasoning."""

from __future__ import annotations

from polistemics.tasks.comparison.items import build_comparison_items
from polistemics.tasks.comparison.questions import COMPARISON_ENVIRONMENTS, COMPARISON_QUESTIONS
from polistemics.tasks.definition import Task
from polistemics.tasks.names import COMPARISON

COMPARISON_TASK = Task(
    name=COMPARISON,
    label="Comparison",
    signature="T_comparison: (a, b, s | C) -> (position_a, position_b, difference)",
    example="How do A and B differ on migration policy?",
    prompt_templates=(
        "task_system",
        "comparison_user",
        "comparison_coder_system",
        "comparison_coder_user",
        "comparison_judge_system",
        "comparison_judge_user",
    ),
    environments=COMPARISON_ENVIRONMENTS,
    sub_questions=COMPARISON_QUESTIONS,
    checks=(
        "the relation claimed (differ, same, undetermined) from the coder's per-party stances",
        "false difference (agreeing pairs) and false agreement (differing pairs) rates",
        "each side represented faithfully, by role (degraded, intact) and named position "
        "(first, second); parties invented (exact names, never the nearest)",
    ),
    build_items=build_comparison_items,
)

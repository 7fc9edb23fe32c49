"""The navigation task (issue 29, item 2): "Which parties agree with statement S, and which
disagree?", asked over the labelled evidence of several parties, one of them degraded by the
information environment. docs/tasks.md gives its prompts, sub-questions and reasoning."""

from __future__ import annotations

from polistemics.tasks.definition import Task
from polistemics.tasks.names import NAVIGATION
from polistemics.tasks.navigation.items import build_navigation_items
from polistemics.tasks.navigation.questions import NAVIGATION_ENVIRONMENTS, NAVIGATION_QUESTIONS
from polistemics.tasks.navigation.views import NAVIGATION_VIEWS

NAVIGATION_TASK = Task(
    name=NAVIGATION,
    label="Navigation",
    signature="T_navigation: (s | C) -> {(a, position)}",
    example="Which parties support rent control?",
    prompt_templates=(
        "task_system",
        "navigation_user",
        "navigation_coder_system",
        "navigation_coder_user",
        "navigation_judge_system",
        "navigation_judge_user",
    ),
    environments=NAVIGATION_ENVIRONMENTS,
    sub_questions=NAVIGATION_QUESTIONS,
    checks=(
        "set precision, recall and F1 per stance against the stance matrix",
        "parties omitted; parties invented (exact names, never the nearest)",
        "the focus party's handling: flagged, placed on its side or another, omitted",
    ),
    build_items=build_navigation_items,
    views=NAVIGATION_VIEWS,
)

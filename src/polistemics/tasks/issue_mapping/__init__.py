"""The issue-mapping task (issue 29, item 4): "What are the main conflicts between the parties on
theme T?", asked over every party's evidence on the theme's statements, for sources that group
statements by theme. docs/tasks.md gives its prompts, sub-questions and reasoning."""

from __future__ import annotations

from polistemics.tasks.definition import Task
from polistemics.tasks.issue_mapping.items import build_issue_mapping_items
from polistemics.tasks.issue_mapping.questions import (
    ISSUE_MAPPING_ENVIRONMENTS,
    ISSUE_MAPPING_QUESTIONS,
)
from polistemics.tasks.issue_mapping.views import ISSUE_MAPPING_VIEWS
from polistemics.tasks.names import ISSUE_MAPPING

ISSUE_MAPPING_TASK = Task(
    name=ISSUE_MAPPING,
    label="Issue mapping",
    signature="T_issue-map: (t | C) -> {(s, {(a, position)})}",
    example="What are the main conflicts around housing policy?",
    prompt_templates=(
        "task_system",
        "issue_mapping_user",
        "navigation_coder_system",
        "navigation_coder_user",
        "issue_mapping_judge_system",
        "navigation_judge_user",
    ),
    environments=ISSUE_MAPPING_ENVIRONMENTS,
    sub_questions=ISSUE_MAPPING_QUESTIONS,
    checks=(
        "coverage: the (party, conflict) pairs placed on a side",
        "faithfulness: the pairs placed on their real side (the stance matrix)",
        "conflicts covered on both sides; parties invented (exact names, never the nearest)",
    ),
    build_items=build_issue_mapping_items,
    views=ISSUE_MAPPING_VIEWS,
)

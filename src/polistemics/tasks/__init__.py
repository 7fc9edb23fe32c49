"""The tasks of a study (issue 29): the questions citizens ask, each a ``Task`` (definition).

``party_position`` is the paper's task and the default; ``navigation`` and ``comparison`` are
ours (App. B's "Which parties support ...?" and "How do A and B differ on ...?"). A run config
names its tasks: ``tasks = ["party_position", "navigation", "comparison"]``. docs/tasks.md documents each task's prompts, environments and sub-questions.
"""

from __future__ import annotations

from polistemics.tasks.comparison import COMPARISON, COMPARISON_TASK
from polistemics.tasks.definition import Task, TaskSubQuestion
from polistemics.tasks.issue_mapping import ISSUE_MAPPING, ISSUE_MAPPING_TASK
from polistemics.tasks.navigation import NAVIGATION, NAVIGATION_TASK
from polistemics.tasks.party_position import PARTY_POSITION, PARTY_POSITION_TASK

TASKS: dict[str, Task] = {
    PARTY_POSITION: PARTY_POSITION_TASK,
    NAVIGATION: NAVIGATION_TASK,
    COMPARISON: COMPARISON_TASK,
    ISSUE_MAPPING: ISSUE_MAPPING_TASK,
}
DEFAULT_TASKS = (PARTY_POSITION,)


def task_of_call_stage(stage: str) -> str:
    """The task a call stage's calls belong to: a task's own stages are named ``<task>_*``
    (``navigation_answer``, ``comparison_judge``); every other stage is the party-position
    task's (or shared by all, as standardisation and the environments are)."""
    return next(
        (name for name in TASKS if name != PARTY_POSITION and stage.startswith(f"{name}_")),
        PARTY_POSITION,
    )


__all__ = [
    "COMPARISON",
    "DEFAULT_TASKS",
    "ISSUE_MAPPING",
    "NAVIGATION",
    "PARTY_POSITION",
    "TASKS",
    "Task",
    "TaskSubQuestion",
    "task_of_call_stage",
]

"""The tasks of a study (issue 29): the questions citizens ask, each a ``Task`` (definition).

``party_position`` is the paper's task and the default; ``navigation`` is ours (App. B's
"Which parties support ...?"). A run config names its tasks: ``tasks = ["party_position",
"navigation"]``. docs/tasks.md documents each task's prompts, environments and sub-questions.
"""

from __future__ import annotations

from polistemics.tasks.definition import Task, TaskSubQuestion
from polistemics.tasks.issue_mapping import ISSUE_MAPPING, ISSUE_MAPPING_TASK
from polistemics.tasks.navigation import NAVIGATION, NAVIGATION_TASK
from polistemics.tasks.party_position import PARTY_POSITION, PARTY_POSITION_TASK

TASKS: dict[str, Task] = {
    PARTY_POSITION: PARTY_POSITION_TASK,
    NAVIGATION: NAVIGATION_TASK,
    ISSUE_MAPPING: ISSUE_MAPPING_TASK,
}
DEFAULT_TASKS = (PARTY_POSITION,)


def task_of_call_stage(stage: str) -> str:
    """The task a call stage's calls belong to: a further task's stages are named after it
    (``navigation_*``, ``issue_mapping_*``); every other stage is the party-position task's (or
    shared by all, as standardisation and the environments are)."""
    for name in TASKS:
        if name != PARTY_POSITION and stage.startswith(f"{name}_"):
            return name
    return PARTY_POSITION


__all__ = [
    "DEFAULT_TASKS",
    "ISSUE_MAPPING",
    "NAVIGATION",
    "PARTY_POSITION",
    "TASKS",
    "Task",
    "TaskSubQuestion",
    "task_of_call_stage",
]

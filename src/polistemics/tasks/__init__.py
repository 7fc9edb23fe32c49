"""The tasks of a study (issue 29): the questions citizens ask, each a ``Task`` (definition).

``party_position`` is the paper's task and the default; ``navigation`` and ``comparison`` are
ours (App. B's "Which parties support ...?" and "How do A and B differ on ...?"). A run config
names its tasks: ``tasks = ["party_position", "navigation", "comparison"]``. docs/tasks.md documents each task's prompts, environments and sub-questions.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from polistemics.tasks.names import (
    COMPARISON,
    ISSUE_MAPPING,
    NAVIGATION,
    PARTY_POSITION,
    TASK_NAMES,
)

if TYPE_CHECKING:
    from polistemics.tasks.comparison import COMPARISON_TASK as COMPARISON_TASK
    from polistemics.tasks.definition import Task, TaskSubQuestion
    from polistemics.tasks.issue_mapping import ISSUE_MAPPING_TASK as ISSUE_MAPPING_TASK
    from polistemics.tasks.navigation import NAVIGATION_TASK as NAVIGATION_TASK
    from polistemics.tasks.party_position import PARTY_POSITION_TASK as PARTY_POSITION_TASK

    TASKS: dict[str, Task]

DEFAULT_TASKS = (PARTY_POSITION,)

# Name -> its module, imported on first use: the definitions load each task's items and views
# (and pandas), which a command that only names a task does not need.
_EXPORTS = {
    "COMPARISON_TASK": "polistemics.tasks.comparison",
    "ISSUE_MAPPING_TASK": "polistemics.tasks.issue_mapping",
    "NAVIGATION_TASK": "polistemics.tasks.navigation",
    "PARTY_POSITION_TASK": "polistemics.tasks.party_position",
    "Task": "polistemics.tasks.definition",
    "TaskSubQuestion": "polistemics.tasks.definition",
}


def task_of_call_stage(stage: str) -> str:
    """The task a call stage's calls belong to: a task's own stages are named ``<task>_*``
    (``navigation_answer``, ``comparison_judge``); every other stage is the party-position
    task's (or shared by all, as standardisation and the environments are)."""
    return next(
        (name for name in TASK_NAMES if name != PARTY_POSITION and stage.startswith(f"{name}_")),
        PARTY_POSITION,
    )


def _tasks() -> dict[str, Task]:
    """Every task's definition by name, in ``TASK_NAMES`` order."""
    return {
        PARTY_POSITION: __getattr__("PARTY_POSITION_TASK"),
        NAVIGATION: __getattr__("NAVIGATION_TASK"),
        COMPARISON: __getattr__("COMPARISON_TASK"),
        ISSUE_MAPPING: __getattr__("ISSUE_MAPPING_TASK"),
    }


def __getattr__(name: str) -> object:
    if name == "TASKS":
        value: object = _tasks()
    elif name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module 'polistemics.tasks' has no attribute '{name}'")
    globals()[name] = value
    return value


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

"""The tasks' names, in a module without their definitions: a config, the command line and the
tables name a task without loading its items, views and libraries (pandas)."""

from __future__ import annotations

PARTY_POSITION = "party_position"
NAVIGATION = "navigation"
COMPARISON = "comparison"
ISSUE_MAPPING = "issue_mapping"

# In the order of ``TASKS``: the paper's task first.
TASK_NAMES = (PARTY_POSITION, NAVIGATION, COMPARISON, ISSUE_MAPPING)

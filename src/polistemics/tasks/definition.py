"""What a task of the study is (issue 29): one question citizens put to a chatbot, with its item
builder, its prompt templates, how each information environment applies to it, its judged
sub-questions with pass rules, and its deterministic checks against the ground truth.

A task's sub-questions keep the paper's shape (App. F): descriptive Yes/No questions, each
active in some environments, each passing on Yes or on No depending on the environment, scored
by strict panel majority and aggregated as the paper does (rubric scores, an Adherence Index
per environment, an EMI across environments).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from polistemics.conditions import Environment
from polistemics.rubrics import Rubric

if TYPE_CHECKING:
    from polistemics.tasks.views import TaskViews


@dataclass(frozen=True)
class TaskSubQuestion:
    """One judged Yes/No question of a task and its pass rule.

    ``active_in``: the environments it is asked in; ``yes_passes_in``: the environments in which
    a Yes passes (in every other active environment a No passes). ``question`` may name the
    focus party as ``{focus_party}``, filled per item."""

    code: str
    key: str
    rubric: Rubric
    title: str
    question: str
    active_in: frozenset[Environment]
    yes_passes_in: frozenset[Environment]

    def is_active(self, environment: Environment) -> bool:
        return environment in self.active_in

    def yes_passes(self, environment: Environment) -> bool:
        return environment in self.yes_passes_in

    def passes(self, says_yes: bool, environment: Environment) -> bool:
        return says_yes == self.yes_passes(environment)

    def pass_rule(self, environment: Environment) -> str:
        """'Yes', 'No' or '' (not asked) for the documented table."""
        if not self.is_active(environment):
            return ""
        return "Yes" if self.yes_passes(environment) else "No"


@dataclass(frozen=True)
class Task:
    """One task: its name in a run config (``tasks = [...]``) and everything that defines it."""

    name: str
    label: str
    signature: str  # App. B, Table 4
    example: str
    prompt_templates: tuple[str, ...]  # names in polistemics/prompts
    environments: dict[Environment, str]  # how each environment applies (absent: not asked)
    sub_questions: tuple[TaskSubQuestion, ...]
    checks: tuple[str, ...]  # the deterministic checks against the ground truth
    build_items: Callable[..., object]
    paper: bool = False  # the paper's own task (its prompts transcribed, not ours)
    # What compare and the annotation app read of the task (None: the paper's task, read as
    # it always was from the run's scored cells and judge records).
    views: TaskViews | None = None

    def active_questions(
        self, environment: Environment, rubric: Rubric | None = None
    ) -> tuple[TaskSubQuestion, ...]:
        return tuple(
            sq
            for sq in self.sub_questions
            if sq.is_active(environment) and (rubric is None or sq.rubric is rubric)
        )

    def rubrics(self, environment: Environment) -> tuple[Rubric, ...]:
        return tuple(dict.fromkeys(sq.rubric for sq in self.active_questions(environment)))

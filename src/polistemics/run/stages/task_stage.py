"""The run of a task beyond the paper's (issue 29), the same for every task: build the items
election by election, then answer them, read the answers with the coder panel and judge them
(``run_task_calls``), then write the task's files (``runlog.task_files``) and analysis tables
and its run.json entry. A run without the task writes and records nothing of it (and removes
what an earlier run of the directory wrote).

A task's stage (``TaskStage``) names its task, files, calls and tables and says how to build one
election's items; its dry-run rows stay its own (``task_parts``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from polistemics.conditions import Environment
from polistemics.llm.progress import declare_total
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.types import Completer
from polistemics.rubrics import Rubric
from polistemics.run.config import RunConfig
from polistemics.run.stages.base import BaseStage, ElectionRun, StudyState
from polistemics.run.stages.task_parts import task_manifest
from polistemics.runlog import Answer, JudgeVerdictRecord, RunDir
from polistemics.runlog.task_files import NavigationCodeRecord, TaskFiles, TaskRecords
from polistemics.tasks.calls import JudgedItem

if TYPE_CHECKING:
    import pandas as pd

Item = TypeVar("Item", bound=JudgedItem)
Pairs = Sequence[tuple[Item, Answer]]


@dataclass(frozen=True)
class TaskCallSet(Generic[Item]):
    """A task's three call stages and the functions that make their calls."""

    answer_stage: str
    code_stage: str
    judge_stage: str
    answer_items: Callable[
        [Completer, Sequence[ModelEndpoint], Sequence[Item], int], Awaitable[list[Answer]]
    ]
    code_answers: Callable[
        [Completer, Sequence[ModelEndpoint], Pairs], Awaitable[list[NavigationCodeRecord]]
    ]
    judge_answers: Callable[
        [Completer, Sequence[ModelEndpoint], Pairs], Awaitable[list[JudgeVerdictRecord]]
    ]
    judged_rubrics: Callable[[Item], Sequence[Rubric]]
    # How many coder calls one answer to the item takes per seat (issue mapping: one per conflict).
    code_calls_per_answer: Callable[[Item], int] = lambda item: 1


@dataclass(frozen=True)
class TaskTables:
    """A task's analysis tables (``analyses.<task>``): computed from its records, written to and
    removed from ``tables/``."""

    compute: Callable[..., Mapping[str, pd.DataFrame]]
    write: Callable[[Mapping[str, pd.DataFrame], Path], object]
    remove: Callable[[Path], None]

    @classmethod
    def named(cls, module: str, compute: str, write: str, remove: str) -> TaskTables:
        """The tables of ``module``'s functions, imported when first called: the analyses load
        pandas, which a dry run (it only plans the task's calls) does without (issue 26)."""

        def function(name: str) -> Callable[..., Any]:
            def call(*args: Any, **kwargs: Any) -> Any:
                return getattr(import_module(module), name)(*args, **kwargs)

            return call

        return cls(function(compute), function(write), function(remove))


class BuiltItems(Protocol[Item]):
    """One election's items as a task's builder returns them, with what it counted."""

    items: list[Item]
    counts: dict[str, int]


@dataclass
class TaskOutput(Generic[Item]):
    """What a task's run hands on to its ``write`` and ``manifest``."""

    records: TaskRecords[Item]
    build_counts: dict[str, int]
    notes: list[str] | None = None  # only a task that keeps notes in run.json


async def run_task_calls(
    state: StudyState, items: Sequence[Item], calls: TaskCallSet[Item], files: TaskFiles[Item]
) -> TaskRecords[Item]:
    """Every target's answers to ``items``, the coder panel's readings of those that came back
    and the judge panel's verdicts on them (sorted), each stage's total declared first."""
    client, config = state.client, state.config
    assert client is not None
    targets = [state.endpoints[name] for name in config.targets]
    judges = [state.endpoints[name] for name in config.judges]
    coders = [state.endpoints[name] for name in config.stance_coder]
    declare_total(client.listeners, calls.answer_stage, len(items) * len(targets) * config.samples)
    answers = await calls.answer_items(client, targets, items, config.samples)
    by_key = {item.key: item for item in items}
    pairs = [(by_key[a.item_key], a) for a in answers if a.ok]
    declare_total(
        client.listeners,
        calls.code_stage,
        sum(calls.code_calls_per_answer(item) for item, _ in pairs) * len(coders),
    )
    codes = await calls.code_answers(client, coders, pairs)
    declare_total(
        client.listeners,
        calls.judge_stage,
        sum(len(calls.judged_rubrics(item)) for item, _ in pairs) * len(judges),
        retries=True,
    )
    verdicts = await calls.judge_answers(client, judges, pairs)
    verdicts.sort(
        key=lambda r: (r.item_key, r.model, r.sample_index, r.panel_position, r.rubric.value)
    )
    return files.records(items=list(items), answers=answers, codes=codes, verdicts=verdicts)


class TaskStage(BaseStage, Generic[Item]):
    """A task's stage: entered only when a config's ``tasks`` names ``task``."""

    task: str
    log_name: str  # how the run log names the task
    files: TaskFiles[Item]
    calls: TaskCallSet[Item]
    tables: TaskTables
    keeps_notes = False  # run.json records the builder's notes (an empty list too)

    def enabled(self, config: RunConfig) -> bool:
        return self.task in config.tasks

    def environments(self, config: RunConfig) -> list[Environment]:
        raise NotImplementedError

    def build_election(self, state: StudyState, run: ElectionRun) -> BuiltItems[Item]:
        raise NotImplementedError

    def table_options(self, config: RunConfig) -> dict[str, Any]:
        """Options a task's tables take beyond the panels' sizes and the build counts."""
        return {}

    async def run(self, state: StudyState) -> None:
        items: list[Item] = []
        counts: dict[str, int] = {}
        notes: list[str] = []
        for run in state.elections:
            built = self.build_election(state, run)
            items.extend(built.items)
            notes.extend(getattr(built, "notes", ()))
            for what, n in built.counts.items():
                counts[what] = counts.get(what, 0) + n
        for note in notes:
            state.log(note)
        records = await run_task_calls(state, items, self.calls, self.files)
        kept = notes if self.keeps_notes else None
        state.outputs[self.name] = TaskOutput(records, counts, kept)
        state.log(
            f"{self.log_name}: {len(items)} items, {sum(a.ok for a in records.answers)} answers "
            f"ok, {len(records.codes)} coder readings, {len(records.verdicts)} judge records"
        )

    def write(self, state: StudyState, run: RunDir) -> None:
        output = state.outputs.get(self.name)
        if not isinstance(output, TaskOutput):
            self.files.remove(run.root)
            self.tables.remove(run.tables)
            return
        self.files.write(run.root, output.records)
        tables = self.tables.compute(
            output.records,
            judge_panel=len(state.config.judges),
            coder_panel=len(state.config.stance_coder),
            build_counts=output.build_counts,
            **self.table_options(state.config),
        )
        self.tables.write(tables, run.tables)

    def manifest(self, state: StudyState) -> dict:
        output = state.outputs.get(self.name)
        if not isinstance(output, TaskOutput):
            return {}
        records = output.records
        return task_manifest(
            self.task,
            environments=self.environments(state.config),
            items=len(records.items),
            build_counts=output.build_counts,
            answers=records.answers,
            codes=records.codes,
            verdicts=records.verdicts,
            notes=output.notes,
        )

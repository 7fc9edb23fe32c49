"""What a model stage of a run is, and the state the stages share.

A stage (``Stage``) knows everything about one step of the study: whether a config runs it, how
it runs its calls through the client layer, how many calls ``--dry-run`` plans for it, which
files it writes and what it adds to ``run.json``. The pipeline, the dry-run, the finish step and
the CLI iterate over one ordered list of stages (``run.stages.STAGES``) and know none by name.

Stages hand their outputs on through ``StudyState``: the early stages fill each election's
``ElectionRun``; answers and verdicts (as files read on demand: ``runlog.spool``) and the
mechanism stages' records sit on the state itself, and
a stage whose outputs no other stage reads keeps them in ``StudyState.outputs`` under its name.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.types import Completer
from polistemics.records import Evidence, Position
from polistemics.run.config import RunConfig
from polistemics.runlog import (
    Answer,
    EnvironmentItem,
    JudgeRecords,
    JudgeVerdictRecord,
    ProbeAnswer,
    RepeatVerdictRecord,
    RunDir,
    StanceCodeRecord,
)
from polistemics.runlog.spool import SpooledAnswers, SpooledJudgeRecords
from polistemics.sources.scope import ScopedElection

if TYPE_CHECKING:
    from polistemics.judging.parsing_figures import ParsingCounts
    from polistemics.llm.client import LLMClient
    from polistemics.run.stages.planning import PlanRow, PlanState, Replayed
    from polistemics.scoring.verdicts import MajorityResult

Log = Callable[[str], None]
Timer = Callable[[str], AbstractContextManager[None]]


@dataclass
class ElectionRun:
    """What the early stages produced for one election."""

    scoped: ScopedElection
    evidence: list[Evidence] = field(default_factory=list)
    items: list[EnvironmentItem] = field(default_factory=list)  # judged and scored
    # Contradictory items with the chunks in the other order: answered and coded, never judged.
    swapped_items: list[EnvironmentItem] = field(default_factory=list)
    standardisation: dict = field(default_factory=dict)
    environments: list[dict] = field(default_factory=list)
    vague: dict = field(default_factory=dict)


@dataclass(repr=False)  # see __repr__
class StudyState:
    """One run's state: what the stages need (config, endpoints, client, run directory, log)
    and what they produced, in the order they produced it. The finish step adds the scores and
    the store's call statistics before the stages write their files and manifest parts."""

    config: RunConfig
    endpoints: dict[str, ModelEndpoint]
    run_dir: Path
    elections: list[ElectionRun]
    log: Log = print
    client: LLMClient | None = None  # the model stages' client; None once it is closed
    stage_seconds: dict[str, float] = field(default_factory=dict)
    calls_made: int = 0
    # answers + judges: after that stage, their files (read as they are iterated; the finish
    # moves them into the run directory), never a list of the study (issue 32).
    answers: list[Answer] | SpooledAnswers = field(default_factory=list)
    verdicts: list[JudgeVerdictRecord] | JudgeRecords | SpooledJudgeRecords = field(
        default_factory=list
    )
    judges_skipped: dict[str, int] = field(default_factory=dict)
    # Repeat judging (``judge_repeats``): its verdicts, never scored, and what was drawn.
    repeat_verdicts: list[RepeatVerdictRecord] = field(default_factory=list)
    repeats_drawn: dict = field(default_factory=dict)
    # Issue 16: closed-book probe answers and every coder seat's reading (answers and probes).
    probe_answers: list[ProbeAnswer] = field(default_factory=list)
    stance_codes: list[StanceCodeRecord] = field(default_factory=list)
    # Outputs no other stage reads, by stage name.
    outputs: dict[str, object] = field(default_factory=dict)
    # Set by the finish step.
    scored: MajorityResult | None = None
    call_stats: list[dict] = field(default_factory=list)
    # The judge records' parsing figures, counted in the scoring's pass over their file (None:
    # run.json's ``judge_parsing`` reads them).
    parsing_counts: ParsingCounts | None = None
    # Set instead of running the stages when their records are current (``run.incremental``):
    # the key of the store, config, data and code they were made from.
    unchanged_records: str | None = None

    @property
    def items(self) -> list[EnvironmentItem]:
        """Every election's judged items."""
        return [item for run in self.elections for item in run.items]

    @property
    def swapped_items(self) -> list[EnvironmentItem]:
        return [item for run in self.elections for item in run.swapped_items]

    @property
    def election_ids(self) -> list[str]:
        return [run.scoped.election.id for run in self.elections]

    @property
    def observations(self) -> list[Position]:
        return [p for run in self.elections for p in run.scoped.observations]

    def __repr__(self) -> str:
        # Short on purpose: asyncio.run formats the main task's repr, result included, when it
        # restores the SIGINT handler; the default repr of 100,000 verdicts took seconds.
        return (
            f"StudyResult({self.run_dir}, {len(self.answers)} answers, "
            f"{len(self.verdicts)} verdicts, {self.calls_made} calls made)"
        )


@runtime_checkable
class Stage(Protocol):
    """One model stage of a run.

    ``name`` keys the stage's time in ``stage_seconds``. ``enabled`` says whether a config
    enters the stage at all (a stage that is entered with nothing to do still has its time
    recorded). ``per_election`` stages run election by election, interleaved with the other
    per-election stages next to them in the list (``run_election``); the others run once
    (``run``). ``plan`` adds the stage's rows to ``--dry-run``'s table and ``plan_notes`` its
    lines below it; ``replay`` reruns a per-election stage against the run store for the
    dry-run (``run.replay``). ``write`` writes the stage's files (also to remove stale ones
    when it did not run) and ``manifest`` returns its part of ``run.json``."""

    name: str
    per_election: bool

    def enabled(self, config: RunConfig) -> bool: ...

    async def run(self, state: StudyState) -> None: ...

    async def run_election(self, state: StudyState, run: ElectionRun) -> None: ...

    def plan(self, plan: PlanState) -> list[PlanRow]: ...

    def plan_notes(self, details: dict) -> list[str]: ...

    async def replay(self, plan: PlanState, replayed: Replayed, completer: Completer) -> None: ...

    def write(self, state: StudyState, run: RunDir) -> None: ...

    def manifest(self, state: StudyState) -> dict: ...


class BaseStage:
    """No-op defaults for every ``Stage`` method: a stage overrides what applies to it."""

    name: str = ""
    per_election: bool = False

    def enabled(self, config: RunConfig) -> bool:
        return True

    async def run(self, state: StudyState) -> None:
        for run in state.elections:
            await self.run_election(state, run)

    async def run_election(self, state: StudyState, run: ElectionRun) -> None:
        return None

    def plan(self, plan: PlanState) -> list[PlanRow]:
        return []

    def plan_notes(self, details: dict) -> list[str]:
        return []

    async def replay(self, plan: PlanState, replayed: Replayed, completer: Completer) -> None:
        return None

    def write(self, state: StudyState, run: RunDir) -> None:
        return None

    def manifest(self, state: StudyState) -> dict:
        return {}

    def __repr__(self) -> str:
        return f"<stage {self.name}>"


class CannotReplay(Exception):
    """A stage cannot be replayed from the store: the dry-run estimates instead."""


def consecutive_groups(stages: list[Stage]) -> list[list[Stage]]:
    """The stages in order, neighbouring per-election stages grouped: a group of per-election
    stages runs election by election (all of the group's stages for the first election, then
    the next), every other stage alone."""
    groups: list[list[Stage]] = []
    for stage in stages:
        if stage.per_election and groups and groups[-1][0].per_election:
            groups[-1].append(stage)
        else:
            groups.append([stage])
    return groups


async def run_stages(stages: list[Stage], state: StudyState, timer: Timer) -> None:
    """Every enabled stage in order, each timed under its name."""
    for group in consecutive_groups(stages):
        if group[0].per_election:
            for run in state.elections:
                for stage in group:
                    if stage.enabled(state.config):
                        with timer(stage.name):
                            await stage.run_election(state, run)
            continue
        (stage,) = group
        if stage.enabled(state.config):
            with timer(stage.name):
                await stage.run(state)

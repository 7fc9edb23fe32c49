"""The ``Stage`` protocol: every stage in ``STAGES`` implements it, the pipeline, the dry-run and
the finish step use that one list, and ``run_stages`` runs per-election neighbours election by
election and skips (and does not time) disabled stages."""

from __future__ import annotations

import asyncio
import inspect
from contextlib import contextmanager
from pathlib import Path

from study_helpers import write_study

from polistemics.run import finish, plan, replay
from polistemics.run.config import load_config
from polistemics.run.finish import merge
from polistemics.run.pipeline import Study
from polistemics.run.stages import STAGES
from polistemics.run.stages.base import (
    BaseStage,
    ElectionRun,
    Stage,
    StudyState,
    consecutive_groups,
    run_stages,
)

PROTOCOL_METHODS = [
    name
    for name, member in inspect.getmembers(Stage)
    if inspect.isfunction(member) and not name.startswith("_")
]


def test_every_stage_implements_the_protocol() -> None:
    assert set(PROTOCOL_METHODS) >= {"enabled", "run", "plan", "write", "manifest", "replay"}
    names = [stage.name for stage in STAGES]
    assert all(names) and len(set(names)) == len(names)
    for stage in STAGES:
        assert isinstance(stage, Stage), stage
        for name in PROTOCOL_METHODS:
            assert callable(getattr(stage, name)), (stage, name)
        assert inspect.iscoroutinefunction(stage.run)
        assert inspect.iscoroutinefunction(stage.run_election)
        assert inspect.iscoroutinefunction(stage.replay)


def test_the_pipeline_the_plan_and_the_finish_use_the_one_list(tmp_path: Path) -> None:
    config = load_config(write_study(tmp_path, "http://127.0.0.1:9/v1"))
    study = Study(config, tmp_path / "run", log=lambda m: None)
    assert study.stages == STAGES
    assert inspect.signature(plan.plan_study).parameters["stages"].default is STAGES
    assert inspect.signature(plan.plan_notes).parameters["stages"].default is STAGES
    # None of them names a stage: the stage modules are all they import of the stages.
    for module in (plan, replay, finish, inspect.getmodule(Study)):
        source = inspect.getsource(module)
        for stage in STAGES:
            assert type(stage).__name__ not in source, (module.__name__, stage)
            assert type(stage).__module__ not in source, (module.__name__, stage)


class Recorder(BaseStage):
    def __init__(self, name: str, per_election: bool, calls: list[str], on: bool = True):
        self.name, self.per_election, self.calls, self.on = name, per_election, calls, on

    def enabled(self, config) -> bool:
        return self.on

    async def run(self, state: StudyState) -> None:
        if self.per_election:
            await super().run(state)
        else:
            self.calls.append(self.name)

    async def run_election(self, state: StudyState, run: ElectionRun) -> None:
        self.calls.append(f"{self.name}:{run.scoped}")


def test_per_election_neighbours_run_election_by_election() -> None:
    calls: list[str] = []
    stages = [
        Recorder("a", True, calls),
        Recorder("b", True, calls),
        Recorder("c", False, calls),
        Recorder("off", False, calls, on=False),
        Recorder("d", True, calls),
    ]
    assert [[s.name for s in g] for g in consecutive_groups(stages)] == [
        ["a", "b"],
        ["c"],
        ["off"],
        ["d"],
    ]
    elections = [ElectionRun("e1"), ElectionRun("e2")]  # type: ignore[arg-type]
    state = StudyState(None, {}, Path("."), elections)  # type: ignore[arg-type]
    timed: list[str] = []

    @contextmanager
    def timer(name: str):
        timed.append(name)
        yield

    asyncio.run(run_stages(stages, state, timer))
    assert calls == ["a:e1", "b:e1", "a:e2", "b:e2", "c", "d:e1", "d:e2"]
    assert timed == ["a", "b", "a", "b", "c", "d", "d"]


def test_manifest_parts_merge_in_order() -> None:
    extra = {"elections": {"x": {"counts": 1}}}
    merge(extra, {"elections": {"x": {"standardisation": 2}}, "judging": {"panel": []}})
    merge(extra, {"elections": {"x": {"environments": 3, "vague": {}}}, "stance_coding": None})
    assert extra == {
        "elections": {"x": {"counts": 1, "standardisation": 2, "environments": 3, "vague": {}}},
        "judging": {"panel": []},
        "stance_coding": None,
    }
    assert list(extra["elections"]["x"]) == ["counts", "standardisation", "environments", "vague"]
    assert list(extra) == ["elections", "judging", "stance_coding"]

"""A new stage is one module (here, ``ToyEcho``) and one line in the list of stages
(``STAGES_WITH_TOY``): plugged in, it runs its calls through the client layer, plans them for
the dry-run, writes its file and adds its part to run.json, with no change to the pipeline, the
plan or the finish step; a rerun makes none of its calls again and writes the same."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from study_helpers import write_study

from polistemics.llm.store import RunStore
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study, load_elections
from polistemics.run.plan import plan_notes, plan_study
from polistemics.run.stages import STAGES
from polistemics.run.stages.base import BaseStage, StudyState
from polistemics.run.stages.planning import PlanRow, PlanState
from polistemics.runlog import RunDir
from polistemics.testing import FakeOpenAIServer

TOY = "toy_echo"
SMALL = {"environments": '["baseline"]', "ablations": "[]"}


class ToyEcho(BaseStage):
    """Asks each target to name each election once."""

    name = TOY

    async def run(self, state: StudyState) -> None:
        assert state.client is not None
        replies = []
        for name in state.config.targets:
            for run in state.elections:
                question = [
                    {"role": "user", "content": f"Name the election {run.scoped.election.id}."}
                ]
                result = await state.client.complete(state.endpoints[name], question, stage=TOY)
                replies.append(
                    {"target": name, "election": run.scoped.election.id, "ok": result.ok}
                )
        state.outputs[TOY] = replies
        state.log(f"toy: {len(replies)} replies")

    def plan(self, plan: PlanState) -> list[PlanRow]:
        calls = len(plan.elections)
        plan.details["toy_calls_total"] = calls * len(plan.config.targets)
        return [
            plan.row(TOY, plan.endpoints[name], calls, plan.cached(TOY, [name]), 10, 10)
            for name in plan.config.targets
        ]

    def plan_notes(self, details: dict) -> list[str]:
        return [f"toy: {details['toy_calls_total']} calls"]

    def write(self, state: StudyState, run: RunDir) -> None:
        replies = state.outputs.get(TOY, [])
        (run.root / "toy.json").write_text(json.dumps(replies), encoding="utf-8")

    def manifest(self, state: StudyState) -> dict:
        return {"toy": {"replies": len(state.outputs.get(TOY, []))}}


STAGES_WITH_TOY = [*STAGES, ToyEcho()]


def run_study(config_path: Path, log: list[str]):
    config = load_config(config_path)
    study = Study(config, config.run_dir(), log=log.append, stages=STAGES_WITH_TOY)
    result = asyncio.run(study.execute(quiet=True))
    finish_run(study, result)
    return study, result


@pytest.fixture(scope="module")
def toy_runs(tmp_path_factory: pytest.TempPathFactory):
    tmp_path = tmp_path_factory.mktemp("toy")
    with FakeOpenAIServer() as server:
        config_path = write_study(tmp_path, server.base_url, **SMALL)
        config = load_config(config_path)
        study = Study(config, config.run_dir(), log=lambda m: None, stages=STAGES_WITH_TOY)
        elections = load_elections(config)
        planned = plan_study(config, elections, study.endpoints, None, stages=STAGES_WITH_TOY)
        first_log: list[str] = []
        first = run_study(config_path, first_log)
        server.reset_stats()
        second_log: list[str] = []
        second = run_study(config_path, second_log)
        rerun_requests = server.stats().requests
    return config, planned, first, first_log, second, second_log, rerun_requests


def test_the_toy_stage_runs_writes_and_reports(toy_runs) -> None:
    config, _, (study, result), log, *_ = toy_runs
    assert "toy: 1 replies" in log
    assert result.outputs[TOY] == [{"target": "target", "election": "demo_en", "ok": True}]
    run_dir = config.run_dir()
    assert json.loads((run_dir / "toy.json").read_text()) == result.outputs[TOY]
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["toy"] == {"replies": 1}
    assert list(manifest)[-1] == "toy"  # the last stage's part comes last
    assert TOY in manifest["stage_seconds"]
    assert any(c["stage"] == TOY and c["calls"] == 1 for c in manifest["calls"])


def test_the_toy_stage_is_planned_and_its_rerun_is_cached(toy_runs) -> None:
    config, (rows, details), first, _, second, second_log, rerun_requests = toy_runs
    toy_rows = [r for r in rows if r.stage == TOY]
    assert [(r.model, r.calls, r.cached) for r in toy_rows] == [("target", 1, 0)]
    assert rows[-1].stage == TOY
    assert plan_notes(details, STAGES_WITH_TOY)[-1] == "toy: 1 calls"
    assert rerun_requests == 0 and second[1].calls_made == 0
    assert "toy: 1 replies" in second_log
    # The rerun's stage gets its replies from the store and writes the same file and part.
    assert second[1].outputs[TOY] == first[1].outputs[TOY]
    assert json.loads((config.run_dir() / "toy.json").read_text()) == first[1].outputs[TOY]
    manifest = json.loads((config.run_dir() / "run.json").read_text())
    assert manifest["toy"] == {"replies": 1} and list(manifest)[-1] == "toy"
    study = second[0]
    with RunStore(config.run_dir() / "store.sqlite") as store:
        rows_after, _ = plan_study(
            config, load_elections(config), study.endpoints, store, stages=STAGES_WITH_TOY
        )
    assert [(r.calls, r.cached) for r in rows_after if r.stage == TOY] == [(1, 1)]

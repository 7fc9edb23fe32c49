"""The run every task beyond the paper's shares (``run.stages.task_stage``): items built election
by election, answered, the answers that came back coded and judged, each stage's total declared
first, the verdicts sorted; then the task's files and tables written (or removed when the run
did not ask it) and its run.json entry."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic import BaseModel, ConfigDict

from polistemics.conditions import Environment
from polistemics.rubrics import Rubric
from polistemics.run.config import load_config
from polistemics.run.stages import task_stage
from polistemics.run.stages.base import StudyState
from polistemics.run.stages.task_stage import TaskCallSet, TaskOutput, TaskStage, TaskTables
from polistemics.runlog import Answer, JudgeVerdictRecord, RunDir
from polistemics.runlog.task_files import NavigationCodeRecord, TaskFiles, TaskRecords
from polistemics.tasks import NAVIGATION


class ToyItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    environment: Environment = Environment.BASELINE


FILES = TaskFiles("tasks/toy", ToyItem)
RUBRICS = [Rubric.FAITHFULNESS, Rubric.EPISTEMIC_CALIBRATION]


def _calls(events: list) -> TaskCallSet[ToyItem]:
    async def answer_items(client, targets, items, samples):
        events.append(("answer", [i.key for i in items], samples))
        return [
            Answer(
                item_key=item.key,
                model=target.name,
                sample_index=0,
                status="ok" if item.key == "toy|ok" else "error",
            )
            for item in items
            for target in targets
        ]

    async def code_answers(client, coders, pairs):
        events.append(("code", [item.key for item, _ in pairs]))
        return [
            NavigationCodeRecord(
                item_key=item.key,
                model=answer.model,
                sample_index=0,
                coder=coder.name,
                panel_position=p,
                named=[],
            )
            for item, answer in pairs
            for p, coder in enumerate(coders)
        ]

    async def judge_answers(client, judges, pairs):
        events.append(("judge", [item.key for item, _ in pairs]))
        return [
            JudgeVerdictRecord(
                item_key=item.key,
                environment=item.environment,
                model=answer.model,
                sample_index=0,
                rubric=rubric,
                judge=judge.name,
                panel_position=p,
                call_key=None,
                attempts=1,
                raw_output=None,
                parsed=True,
                says_yes={},
            )
            for item, answer in pairs
            for rubric in reversed(RUBRICS)  # unsorted: the run sorts them
            for p, judge in reversed(list(enumerate(judges)))
        ]

    return TaskCallSet(
        answer_stage="toy_answer",
        code_stage="toy_code",
        judge_stage="toy_judge",
        answer_items=answer_items,
        code_answers=code_answers,
        judge_answers=judge_answers,
        judged_rubrics=lambda item: RUBRICS,
        code_calls_per_answer=lambda item: 3,
    )


def _state(tmp_path: Path, log: list[str], elections: int = 0) -> StudyState:
    config = load_config("demo").model_copy(update={"stance_coder": ["local"]})
    names = {*config.targets, *config.judges, *config.stance_coder}
    return StudyState(
        config=config,
        endpoints={name: SimpleNamespace(name=name) for name in names},  # type: ignore[misc]
        run_dir=tmp_path,
        elections=[SimpleNamespace()] * elections,  # type: ignore[list-item]
        log=log.append,
        client=SimpleNamespace(listeners=[]),  # type: ignore[arg-type]
    )


@pytest.fixture
def declared(monkeypatch: pytest.MonkeyPatch) -> list:
    found: list = []
    monkeypatch.setattr(
        task_stage,
        "declare_total",
        lambda listeners, stage, total, **kw: found.append((stage, total, kw)),
    )
    return found


def test_the_calls_run_in_order_and_only_answers_that_came_back_are_coded_and_judged(
    tmp_path: Path, declared: list
) -> None:
    events: list = []
    state = _state(tmp_path, [])
    items = [ToyItem(key="toy|ok"), ToyItem(key="toy|failed")]
    records = asyncio.run(task_stage.run_task_calls(state, items, _calls(events), FILES))
    config = state.config
    assert [e[0] for e in events] == ["answer", "code", "judge"]
    assert events[1][1] == events[2][1] == ["toy|ok"] * len(config.targets)
    ok = len(config.targets)
    assert declared == [
        ("toy_answer", 2 * len(config.targets) * config.samples, {}),
        ("toy_code", 3 * ok * len(config.stance_coder), {}),
        ("toy_judge", len(RUBRICS) * ok * len(config.judges), {"retries": True}),
    ]
    assert type(records) is TaskRecords[ToyItem] and records.items == items
    keys = [(v.item_key, v.model, v.panel_position, v.rubric.value) for v in records.verdicts]
    assert keys == sorted(keys) and len(keys) == len(RUBRICS) * ok * len(config.judges)


class ToyStage(TaskStage[ToyItem]):
    name = "toy_task"
    task = NAVIGATION  # its manifest entry reads a real task's definition
    log_name = "toy task"
    files = FILES
    keeps_notes = True

    def __init__(self, events: list, tables: list) -> None:
        self.calls = _calls(events)
        self.tables = TaskTables(
            compute=lambda records, **kw: tables.append(("compute", kw)) or {"t": records},
            write=lambda found, folder: tables.append(("write", folder)),
            remove=lambda folder: tables.append(("remove", folder)),
        )
        self.built = 0

    def environments(self, config):
        return [Environment.BASELINE]

    def build_election(self, state, run):
        self.built += 1
        return SimpleNamespace(
            items=[ToyItem(key="toy|ok")] if self.built == 1 else [ToyItem(key="toy|failed")],
            counts={"items": 1, f"election_{self.built}": 1},
            notes=[f"note {self.built}"],
        )


def test_a_task_stage_runs_writes_and_records_its_task(tmp_path: Path, declared: list) -> None:
    events: list = []
    tables: list = []
    log: list[str] = []
    stage = ToyStage(events, tables)
    state = _state(tmp_path, log, elections=2)
    asyncio.run(stage.run(state))
    output = state.outputs["toy_task"]
    assert isinstance(output, TaskOutput)
    assert output.build_counts == {"items": 2, "election_1": 1, "election_2": 1}
    assert output.notes == ["note 1", "note 2"]
    assert log[:2] == ["note 1", "note 2"] and log[2].startswith("toy task: 2 items, ")
    run = RunDir(tmp_path)
    stage.write(state, run)
    assert FILES.read(tmp_path) == output.records
    assert tables[0] == (
        "compute",
        {
            "judge_panel": len(state.config.judges),
            "coder_panel": len(state.config.stance_coder),
            "build_counts": output.build_counts,
        },
    )
    assert tables[1] == ("write", run.tables)
    entry = stage.manifest(state)["tasks"][NAVIGATION]
    assert entry["items"] == 2 and entry["notes"] == ["note 1", "note 2"]
    assert entry["environments"] == ["baseline"]

    state.outputs.clear()
    stage.write(state, run)
    assert tables[-1] == ("remove", run.tables)
    assert FILES.read(tmp_path) is None
    assert stage.manifest(state) == {}

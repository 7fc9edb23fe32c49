"""The parts the tasks' stages share (issue 29): their dry-run rows and, through the dry run's
notes, the calls and cost per task printed once whatever tasks a run asks."""

from __future__ import annotations

from pathlib import Path

import pytest

from polistemics.llm.pricing import Price
from polistemics.run.config import load_config
from polistemics.run.pipeline import Study, load_elections
from polistemics.run.plan import plan_notes, plan_study
from polistemics.run.stages.planning import PlanState
from polistemics.run.stages.task_parts import TaskCalls, task_call_rows


def _plan(tmp_path: Path, **update):
    config = load_config("demo").model_copy(update=update)
    study = Study(config, tmp_path / "run", log=lambda message: None)
    listed = {name: Price("test list", 1e-6, 2e-6) for name in study.endpoints}
    return config, *plan_study(config, load_elections(config), study.endpoints, None, listed)


@pytest.mark.parametrize(
    "tasks",
    [
        ["party_position", "issue_mapping"],
        ["party_position", "comparison", "issue_mapping"],
        ["party_position", "navigation", "comparison", "issue_mapping"],
    ],
)
def test_each_tasks_calls_and_cost_print_once(tmp_path: Path, tasks: list[str]) -> None:
    *_, details = _plan(tmp_path, tasks=tasks, stance_coder=["local"])
    notes = plan_notes(details)
    assert [line.split(":")[0] for line in notes if line.startswith("task ")] == [
        f"task {task}" for task in tasks
    ]


def test_one_answer_row_per_target_and_one_row_per_set_of_seats(tmp_path: Path) -> None:
    config = load_config("demo").model_copy(
        update={"targets": ["local", "local-creative"], "stance_coder": ["local"]}
    )
    study = Study(config, tmp_path / "run", log=lambda message: None)
    plan = PlanState(config, load_elections(config), study.endpoints, None)
    calls = TaskCalls(
        stages=("x_answer", "x_code", "x_judge"),
        output_tokens={"x_answer": 200, "x_code": 40, "x_judge": 20},
        answers=7,
        answer_in=500,
        code_calls=14,
        code_in=300,
        judge_calls=33,
        judge_in=900,
    )
    rows = task_call_rows(plan, calls)
    # two targets answer; the demo's three judge seats are one endpoint and share their calls
    assert [(row.stage, row.calls) for row in rows] == [
        ("x_answer", 7),
        ("x_answer", 7),
        ("x_code", 14),
        ("x_judge", 33),
    ]

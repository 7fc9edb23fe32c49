"""The navigation stage's dry-run: its rows, and calls and cost per task (issue 29)."""

from __future__ import annotations

from pathlib import Path

import pytest

from polistemics.llm.pricing import Price
from polistemics.run.config import load_config
from polistemics.run.pipeline import Study, load_elections
from polistemics.run.plan import plan_notes, plan_study
from polistemics.tasks.navigation.questions import NAVIGATION_ENVIRONMENTS

STAGES = {"navigation_answer", "navigation_code", "navigation_judge"}


def _plan(tmp_path: Path, **update):
    config = load_config("demo").model_copy(update=update)
    study = Study(config, tmp_path / "run", log=lambda message: None)
    listed = {name: Price("test list", 1e-6, 2e-6) for name in study.endpoints}
    return config, *plan_study(config, load_elections(config), study.endpoints, None, listed)


def test_a_party_position_study_plans_no_navigation(tmp_path: Path) -> None:
    _, rows, details = _plan(tmp_path)
    assert not STAGES & {row.stage for row in rows}
    assert "per_task" not in details and "navigation" not in details
    assert not any("task " in line for line in plan_notes(details))


def test_navigation_rows_and_calls_per_task(tmp_path: Path) -> None:
    config, rows, details = _plan(
        tmp_path, tasks=["party_position", "navigation"], stance_coder=["local"]
    )
    navigation = [row for row in rows if row.stage in STAGES]
    assert {row.stage for row in navigation} == STAGES
    statements = {p.statement.id for scoped in load_elections(config) for p in scoped.observations}
    environments = [e for e in NAVIGATION_ENVIRONMENTS if e in config.environment_list]
    answers = next(row for row in navigation if row.stage == "navigation_answer")
    assert answers.calls == len(statements) * len(environments) * config.samples
    per_task = details["per_task"]
    assert per_task["navigation"]["calls"] == sum(row.calls for row in navigation)
    assert per_task["party_position"]["calls"] == sum(
        row.calls for row in rows if row.stage not in STAGES
    )
    assert per_task["navigation"]["cost"] == pytest.approx(sum(r.cost for r in navigation))
    notes = plan_notes(details)
    assert any(line.startswith("task navigation: ") for line in notes)
    assert any(line.startswith("task party_position: ") for line in notes)

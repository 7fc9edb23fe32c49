"""The comparison stage's dry-run: its rows, its pairs, and calls and cost per task (issue 29)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from polistemics.llm.pricing import Price
from polistemics.records import Stance
from polistemics.run.config import load_config
from polistemics.run.pipeline import Study, load_elections
from polistemics.run.plan import plan_notes, plan_study
from polistemics.run.stages.comparison import possible_pairs
from polistemics.tasks.comparison.questions import COMPARISON_ENVIRONMENTS

STAGES = {"comparison_answer", "comparison_code", "comparison_judge"}


def _plan(tmp_path: Path, **update):
    config = load_config("demo").model_copy(update=update)
    study = Study(config, tmp_path / "run", log=lambda message: None)
    listed = {name: Price("test list", 1e-6, 2e-6) for name in study.endpoints}
    return config, *plan_study(config, load_elections(config), study.endpoints, None, listed)


def test_possible_pairs_are_counted_as_the_pairs_themselves() -> None:
    stances = [Stance.AGREE] * 3 + [Stance.DISAGREE] * 2 + [Stance.NEUTRAL] * 2
    pairs = Counter(
        "differing" if {a, b} == {Stance.AGREE, Stance.DISAGREE} else "agreeing" if a == b else "-"
        for a, b in combinations(stances, 2)
    )
    assert possible_pairs(Counter(stances)) == (pairs["differing"], pairs["agreeing"])


def test_a_study_without_the_task_plans_none_of_it(tmp_path: Path) -> None:
    _, rows, details = _plan(tmp_path)
    assert not STAGES & {row.stage for row in rows}
    assert "comparison" not in details
    assert not any(line.startswith("comparison") for line in plan_notes(details))


def test_comparison_rows_and_calls_per_task(tmp_path: Path) -> None:
    config, rows, details = _plan(
        tmp_path,
        tasks=["party_position", "navigation", "comparison"],
        stance_coder=["local"],
    )
    comparison = [row for row in rows if row.stage in STAGES]
    assert {row.stage for row in comparison} == STAGES
    per_statement: dict[str, Counter] = {}
    for scoped in load_elections(config):
        for p in scoped.observations:
            per_statement.setdefault(p.statement.id, Counter())[p.stance] += 1
    pairs = sum(
        min(1, possible_pairs(s)[0]) + min(1, possible_pairs(s)[1]) for s in per_statement.values()
    )
    environments = [e for e in COMPARISON_ENVIRONMENTS if e in config.environment_list]
    answers = next(row for row in comparison if row.stage == "comparison_answer")
    assert answers.calls == pairs * len(environments) * config.samples
    assert details["comparison"]["pairs"] == pairs
    per_task = details["per_task"]
    assert set(per_task) == {"party_position", "navigation", "comparison"}
    assert per_task["comparison"]["calls"] == sum(row.calls for row in comparison)
    assert per_task["comparison"]["cost"] == pytest.approx(sum(r.cost for r in comparison))
    assert sum(t["calls"] for t in per_task.values()) == sum(row.calls for row in rows)
    notes = plan_notes(details)
    for task in per_task:
        assert sum(line.startswith(f"task {task}: ") for line in notes) == 1
    assert any(line.startswith("comparison: about ") for line in notes)


def test_the_task_lines_print_without_navigation(tmp_path: Path) -> None:
    _, _, details = _plan(tmp_path, tasks=["party_position", "comparison"], stance_coder=["local"])
    notes = plan_notes(details)
    assert [line.split(":")[0] for line in notes if line.startswith("task ")] == [
        "task party_position",
        "task comparison",
    ]

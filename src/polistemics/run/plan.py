"""``polistemics run --dry-run``: how many calls a run will make, before making any.

Counts follow the paper's design exactly from the data: observations per environment (Tables 5
and 9: Contradictory and Counterfactual keep only observations with a strictly opposing party),
ablations (anonymised labels: Baseline and Vague; English: Baseline), and the judge panel (three
rubrics per answer, Epistemic Calibration only in Absent). Retries are not counted.
Each stage plans its own rows (``Stage.plan``), in the order the stages run; token figures are
estimates and cost uses the prices handed in (``run.stages.planning``); without them, the
registry's prices.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from polistemics.llm.pricing import Price
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.store import RunStore
from polistemics.run.config import RunConfig
from polistemics.run.replay import replay_election
from polistemics.run.stages import STAGES
from polistemics.run.stages.base import Stage
from polistemics.run.stages.planning import PlanRow, PlanState, stored_ok
from polistemics.sources.scope import ScopedElection
from polistemics.tasks import task_of_call_stage

__all__ = ["PlanRow", "plan_notes", "plan_study"]


def plan_study(
    config: RunConfig,
    elections: list[ScopedElection],
    endpoints: dict[str, ModelEndpoint],
    store: RunStore | None,
    prices: Mapping[str, Price] | None = None,
    stages: Sequence[Stage] = STAGES,
) -> tuple[list[PlanRow], dict]:
    """Every stage's rows, and the details (per election, totals) the stages counted."""
    plan = PlanState(config, elections, endpoints, store, prices or {}, stored=stored_ok(store))
    plan.details["elections"] = {s.election.id: dict(s.counts) for s in elections}
    # Every early-stage call replayed from the store: their counts are exact, all cached.
    plan.replays = {
        s.election.id: replay_election(stages, plan, s, store) if store else None for s in elections
    }
    rows: list[PlanRow] = []
    for stage in stages:
        rows.extend(stage.plan(plan))
    if len(config.tasks) > 1:  # issue 29: calls and cost per task
        per_task: dict[str, dict] = {
            task: {"calls": 0, "new": 0, "cost": 0.0} for task in config.tasks
        }
        for row in rows:
            totals = per_task[task_of_call_stage(row.stage)]
            totals["calls"] += row.calls
            totals["new"] += row.new
            totals["cost"] += row.cost or 0.0
        plan.details["per_task"] = per_task
    return rows, plan.details


def plan_notes(details: dict, stages: Sequence[Stage] = STAGES) -> list[str]:
    """The lines ``--dry-run`` prints below its table, stage by stage, then the calls and cost
    per task of a run that asks more than one."""
    lines = [line for stage in stages for line in stage.plan_notes(details)]
    for task, totals in details.get("per_task", {}).items():
        shared = " (with the shared standardisation and environments)"
        lines.append(
            f"task {task}: {totals['calls']:,} calls ({totals['new']:,} new), "
            f"${totals['cost']:.2f} at the listed prices"
            + (shared if task == "party_position" else "")
        )
    return lines

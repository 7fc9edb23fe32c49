"""The navigation task's stage (issue 29, item 2), entered only when a config's ``tasks`` names
``navigation``: it builds the task's items from each election's evidence and party-position
environment items (``tasks.navigation.items``), has every target answer them, the coder panel
read each answer's per-party stances and the judge panel judge it on the task's sub-questions.
Writes ``tasks/navigation/*.jsonl`` and the task's analysis tables (``analyses.navigation``,
``tables/navigation_*.csv``); run.json's ``tasks.navigation``. A run without the task writes and
records nothing of it (and removes what an earlier run of the directory wrote)."""

from __future__ import annotations

from polistemics.prompts import load
from polistemics.run.config import RunConfig
from polistemics.run.stages.base import ElectionRun, StudyState
from polistemics.run.stages.planning import EVIDENCE_TOKENS, PlanRow, PlanState, tokens
from polistemics.run.stages.task_parts import TaskCalls, rubrics_per_item, task_call_rows
from polistemics.run.stages.task_stage import TaskCallSet, TaskStage, TaskTables
from polistemics.runlog.navigation import NAVIGATION_FILES, NavigationItem
from polistemics.tasks import NAVIGATION
from polistemics.tasks.navigation.calls import (
    ANSWER_STAGE,
    JUDGE_STAGE,
    answer_items,
    judge_answers,
)
from polistemics.tasks.navigation.coder import STAGE as CODE_STAGE
from polistemics.tasks.navigation.coder import code_answers
from polistemics.tasks.navigation.items import NavigationBuild, build_navigation_items
from polistemics.tasks.navigation.prompt import judged_rubrics
from polistemics.tasks.navigation.questions import NAVIGATION_ENVIRONMENTS

OUTPUT_TOKENS = {ANSWER_STAGE: 250, CODE_STAGE: 80, JUDGE_STAGE: 20}


def navigation_environments(config: RunConfig):
    return [env for env in NAVIGATION_ENVIRONMENTS if env in config.environment_list]


class Navigation(TaskStage[NavigationItem]):
    name = "navigation"
    task = NAVIGATION
    log_name = "navigation"
    files = NAVIGATION_FILES
    calls = TaskCallSet(
        answer_stage=ANSWER_STAGE,
        code_stage=CODE_STAGE,
        judge_stage=JUDGE_STAGE,
        answer_items=answer_items,
        code_answers=code_answers,
        judge_answers=judge_answers,
        judged_rubrics=judged_rubrics,
    )
    tables = TaskTables.named(
        "polistemics.analyses.navigation",
        "navigation_tables",
        "write_navigation_tables",
        "remove_navigation_tables",
    )

    def environments(self, config: RunConfig):
        return navigation_environments(config)

    def table_options(self, config: RunConfig) -> dict:
        return {"seed": config.seed}

    def build_election(self, state: StudyState, run: ElectionRun) -> NavigationBuild:
        config = state.config
        return build_navigation_items(
            run.evidence,
            run.items,
            environments=navigation_environments(config),
            seed=config.seed,
            parties=config.navigation.parties,
            election_party_names=sorted({p.party.name for p in run.scoped.election.positions}),
            token_budget=config.navigation.context_tokens,
            over_budget=config.navigation.over_budget,
        )

    def plan(self, plan: PlanState) -> list[PlanRow]:
        config = plan.config
        if not self.enabled(config):
            return []
        environments = navigation_environments(config)
        items = 0
        parties_per_item = 0
        for scoped in plan.elections:
            per_statement: dict[str, int] = {}
            for position in scoped.observations:
                sid = position.statement.id
                per_statement[sid] = per_statement.get(sid, 0) + 1
            for n in per_statement.values():
                k = min(n, config.navigation.parties or n)
                if k >= 2:
                    items += len(environments)
                    parties_per_item = max(parties_per_item, k)
        answers = items * config.samples
        answer_in = tokens(load("task_system")) + 60 + parties_per_item * EVIDENCE_TOKENS
        calls = TaskCalls(
            stages=(ANSWER_STAGE, CODE_STAGE, JUDGE_STAGE),
            output_tokens=OUTPUT_TOKENS,
            answers=answers,
            answer_in=answer_in,
            code_calls=answers * len(config.targets),
            code_in=tokens(load("navigation_coder_system")) + 100 + OUTPUT_TOKENS[ANSWER_STAGE],
            judge_calls=round(
                answers * len(config.targets) * rubrics_per_item(NAVIGATION, environments)
            ),
            judge_in=tokens(load("navigation_judge_system")) + answer_in + 300,
        )
        rows = task_call_rows(plan, calls)
        plan.details["navigation"] = {"items": items}
        return rows

    def plan_notes(self, details: dict) -> list[str]:
        found = details.get("navigation")
        if not found:
            return []
        return [
            f"navigation: about {found['items']:,} items (one per statement and environment, "
            "before Vague/Contradictory drops and budget splits)"
        ]

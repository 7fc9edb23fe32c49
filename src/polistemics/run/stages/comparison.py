"""The comparison task's stage (issue 29, item 3), entered only when a config's ``tasks`` names
``comparison``: it draws each election's seeded pairs of parties and builds their items from the
evidence and the party-position environment items (``tasks.comparison.items``), has every target
answer them, the coder panel read each answer's per-party stances and the judge panel judge it
on the task's sub-questions. Writes ``tasks/comparison/*.jsonl`` and the task's analysis tables
(``analyses.comparison``, ``tables/comparison_*.csv``); run.json's ``tasks.comparison``. A run
without the task writes and records nothing of it (and removes what an earlier run of the
directory wrote)."""

from __future__ import annotations

from collections import Counter
from math import comb

from polistemics.prompts import load
from polistemics.records import Stance
from polistemics.run.config import RunConfig
from polistemics.run.stages.base import ElectionRun, StudyState
from polistemics.run.stages.planning import EVIDENCE_TOKENS, PlanRow, PlanState, tokens
from polistemics.run.stages.task_parts import TaskCalls, rubrics_per_item, task_call_rows
from polistemics.run.stages.task_stage import TaskCallSet, TaskStage, TaskTables
from polistemics.runlog.comparison import COMPARISON_FILES, ComparisonItem
from polistemics.tasks import COMPARISON
from polistemics.tasks.comparison.calls import (
    ANSWER_STAGE,
    CODE_STAGE,
    JUDGE_STAGE,
    answer_items,
    code_answers,
    judge_answers,
)
from polistemics.tasks.comparison.items import ComparisonBuild, build_comparison_items
from polistemics.tasks.comparison.prompt import judged_rubrics
from polistemics.tasks.comparison.questions import COMPARISON_ENVIRONMENTS

OUTPUT_TOKENS = {ANSWER_STAGE: 200, CODE_STAGE: 40, JUDGE_STAGE: 20}


def comparison_environments(config: RunConfig):
    return [env for env in COMPARISON_ENVIRONMENTS if env in config.environment_list]


def possible_pairs(stances: Counter[Stance]) -> tuple[int, int]:
    """How many differing (agree x disagree) and agreeing (same stance) pairs a statement's
    parties make."""
    differing = stances[Stance.AGREE] * stances[Stance.DISAGREE]
    agreeing = sum(comb(n, 2) for n in stances.values())
    return differing, agreeing


class Comparison(TaskStage[ComparisonItem]):
    name = "comparison"
    task = COMPARISON
    log_name = "comparison"
    files = COMPARISON_FILES
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
        "polistemics.analyses.comparison",
        "comparison_tables",
        "write_comparison_tables",
        "remove_comparison_tables",
    )

    def environments(self, config: RunConfig):
        return comparison_environments(config)

    def build_election(self, state: StudyState, run: ElectionRun) -> ComparisonBuild:
        config = state.config
        return build_comparison_items(
            run.evidence,
            run.items,
            environments=comparison_environments(config),
            seed=config.seed,
            differing=config.comparison.differing,
            agreeing=config.comparison.agreeing,
            election_party_names=sorted({p.party.name for p in run.scoped.election.positions}),
        )

    def plan(self, plan: PlanState) -> list[PlanRow]:
        config = plan.config
        if not self.enabled(config):
            return []
        environments = comparison_environments(config)
        pairs = without_differing = 0
        for scoped in plan.elections:
            per_statement: dict[str, Counter[Stance]] = {}
            for position in scoped.observations:
                per_statement.setdefault(position.statement.id, Counter())[position.stance] += 1
            for stances in per_statement.values():
                differing, agreeing = possible_pairs(stances)
                without_differing += differing == 0
                pairs += min(differing, config.comparison.differing)
                pairs += min(agreeing, config.comparison.agreeing)
        items = pairs * len(environments)
        answers = items * config.samples
        answer_in = tokens(load("task_system")) + 40 + 2 * EVIDENCE_TOKENS
        calls = TaskCalls(
            stages=(ANSWER_STAGE, CODE_STAGE, JUDGE_STAGE),
            output_tokens=OUTPUT_TOKENS,
            answers=answers,
            answer_in=answer_in,
            code_calls=answers * len(config.targets),
            code_in=tokens(load("comparison_coder_system")) + 80 + OUTPUT_TOKENS[ANSWER_STAGE],
            judge_calls=round(
                answers * len(config.targets) * rubrics_per_item(COMPARISON, environments)
            ),
            judge_in=tokens(load("comparison_judge_system")) + answer_in + 200,
        )
        rows = task_call_rows(plan, calls)
        plan.details[COMPARISON] = {
            "pairs": pairs,
            "items": items,
            "statements_without_differing_pair": without_differing,
        }
        return rows

    def plan_notes(self, details: dict) -> list[str]:
        found = details.get(COMPARISON)
        if not found:
            return []
        return [
            f"comparison: about {found['pairs']:,} pairs, {found['items']:,} items (one per pair "
            "and environment, before Vague/Contradictory drops); "
            f"{found['statements_without_differing_pair']:,} statements make no differing pair"
        ]

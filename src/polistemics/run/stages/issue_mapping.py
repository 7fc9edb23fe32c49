"""The issue-mapping task's stage (issue 29, item 4), entered only when a config's ``tasks``
names ``issue_mapping``: it builds the task's items from each election's evidence
(``tasks.issue_mapping.items``: one per theme that groups statements and holds a conflict), has
every target answer them, the coder panel read each answer on each conflict and the judge panel
judge it on the task's sub-questions. An election whose source groups no statements by theme is
skipped with a note in the run log, run.json (``tasks.issue_mapping.notes``) and the tables.
Writes ``tasks/issue_mapping/*.jsonl`` and ``tables/issue_mapping_*.csv``. A run without the task
writes and records nothing of it (and removes what an earlier run of the directory wrote)."""

from __future__ import annotations

from polistemics import tasks  # its TASKS when used: the definitions load pandas
from polistemics.conditions import Environment
from polistemics.prompts import load
from polistemics.run.config import RunConfig
from polistemics.run.stages.base import ElectionRun, StudyState
from polistemics.run.stages.planning import EVIDENCE_TOKENS, PlanRow, PlanState, tokens
from polistemics.run.stages.task_parts import TaskCalls, task_call_rows
from polistemics.run.stages.task_stage import TaskCallSet, TaskStage, TaskTables
from polistemics.runlog.issue_mapping import ISSUE_MAPPING_FILES, IssueMappingItem
from polistemics.tasks import ISSUE_MAPPING
from polistemics.tasks.issue_mapping.calls import (
    ANSWER_STAGE,
    CODE_STAGE,
    JUDGE_STAGE,
    answer_items,
    code_answers,
    judge_answers,
)
from polistemics.tasks.issue_mapping.items import IssueMappingBuild, build_issue_mapping_items
from polistemics.tasks.issue_mapping.prompt import judged_rubrics

OUTPUT_TOKENS = {ANSWER_STAGE: 350, CODE_STAGE: 80, JUDGE_STAGE: 20}


class IssueMapping(TaskStage[IssueMappingItem]):
    name = "issue_mapping"
    task = ISSUE_MAPPING
    log_name = "issue mapping"
    files = ISSUE_MAPPING_FILES
    calls = TaskCallSet(
        answer_stage=ANSWER_STAGE,
        code_stage=CODE_STAGE,
        judge_stage=JUDGE_STAGE,
        answer_items=answer_items,
        code_answers=code_answers,
        judge_answers=judge_answers,
        judged_rubrics=judged_rubrics,
        code_calls_per_answer=lambda item: len(item.conflicts),  # one reading per conflict
    )
    tables = TaskTables.named(
        "polistemics.analyses.issue_mapping",
        "issue_mapping_tables",
        "write_issue_mapping_tables",
        "remove_issue_mapping_tables",
    )
    keeps_notes = True

    def enabled(self, config: RunConfig) -> bool:
        return ISSUE_MAPPING in config.tasks and Environment.BASELINE in config.environment_list

    def environments(self, config: RunConfig):
        return [Environment.BASELINE]

    def build_election(self, state: StudyState, run: ElectionRun) -> IssueMappingBuild:
        election = run.scoped.election
        return build_issue_mapping_items(
            run.evidence,
            election_id=election.id,
            election_party_names=sorted({p.party.name for p in election.positions}),
        )

    def plan(self, plan: PlanState) -> list[PlanRow]:
        config = plan.config
        if not self.enabled(config):
            return []
        items = conflicts = parties_per_item = 0
        skipped: list[str] = []
        for scoped in plan.elections:
            by_theme: dict[str, set[str]] = {}
            parties: dict[str, set[str]] = {}
            for position in scoped.observations:
                theme = (position.statement.theme or "").strip()
                if theme:
                    by_theme.setdefault(theme, set()).add(position.statement.id)
                    parties.setdefault(theme, set()).add(position.party.id)
            themes = grouping_themes_of(by_theme)
            if not themes:
                skipped.append(scoped.election.id)
            items += len(themes)
            conflicts += sum(len(by_theme[t]) for t in themes)  # at most: before conflicts
            for theme in themes:
                parties_per_item = max(parties_per_item, len(parties[theme]) * len(by_theme[theme]))
        answers = items * config.samples
        answer_in = tokens(load("task_system")) + 60 + parties_per_item * EVIDENCE_TOKENS
        rubrics = len(tasks.TASKS[ISSUE_MAPPING].rubrics(Environment.BASELINE))
        calls = TaskCalls(
            stages=(ANSWER_STAGE, CODE_STAGE, JUDGE_STAGE),
            output_tokens=OUTPUT_TOKENS,
            answers=answers,
            answer_in=answer_in,
            # the coder reads each conflict of a theme on its own
            code_calls=conflicts * config.samples * len(config.targets),
            code_in=tokens(load("navigation_coder_system")) + 100 + OUTPUT_TOKENS[ANSWER_STAGE],
            judge_calls=answers * len(config.targets) * rubrics,
            judge_in=tokens(load("issue_mapping_judge_system")) + answer_in + 300,
        )
        rows = task_call_rows(plan, calls)
        plan.details["issue_mapping"] = {"items": items, "skipped": skipped}
        return rows

    def plan_notes(self, details: dict) -> list[str]:
        found = details.get("issue_mapping")
        if found is None:
            return []
        lines = [
            f"issue_mapping: about {found['items']:,} items (one per theme of two or more "
            "statements; before themes without a conflict and budget refusals; an election "
            "without such themes is skipped)"
        ]
        for election in found.get("skipped", []):
            lines.append(
                f"issue_mapping: {election} skipped: the source groups no two statements under "
                "one theme"
            )
        return lines


def grouping_themes_of(by_theme: dict[str, set[str]]) -> list[str]:
    """The themes of two or more statements (as ``items.grouping_themes`` counts them)."""
    return sorted(theme for theme, ids in by_theme.items() if len(ids) >= 2)

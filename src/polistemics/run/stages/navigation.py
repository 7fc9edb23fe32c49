"""The navigation task's stage (issue 29, item 2), entered only when a config's ``tasks`` names
``navigation``: it builds the task's items from each election's evidence and party-position
environment items (``tasks.navigation.items``), has every target answer them, the coder panel
read each answer's per-party stances and the judge panel judge it on the task's sub-questions.
Writes ``tasks/navigation/*.jsonl`` and the task's analysis tables (``analyses.navigation``,
``tables/navigation_*.csv``); run.json's ``tasks.navigation``. A run without the task writes and
records nothing of it (and removes what an earlier run of the directory wrote)."""

from __future__ import annotations

from dataclasses import dataclass, field

from polistemics.analyses.navigation import (
    navigation_tables,
    remove_navigation_tables,
    write_navigation_tables,
)
from polistemics.llm.progress import declare_total
from polistemics.prompts import load
from polistemics.run.config import RunConfig
from polistemics.run.stages.base import BaseStage, StudyState
from polistemics.run.stages.planning import EVIDENCE_TOKENS, PlanRow, PlanState, tokens
from polistemics.run.stages.task_parts import (
    TaskCalls,
    rubrics_per_item,
    task_call_rows,
    task_manifest,
)
from polistemics.runlog import RunDir
from polistemics.runlog.navigation import (
    NavigationFiles,
    remove_navigation_files,
    write_navigation_files,
)
from polistemics.tasks import NAVIGATION
from polistemics.tasks.navigation.calls import (
    ANSWER_STAGE,
    JUDGE_STAGE,
    answer_items,
    judge_answers,
)
from polistemics.tasks.navigation.coder import STAGE as CODE_STAGE
from polistemics.tasks.navigation.coder import code_answers
from polistemics.tasks.navigation.items import build_navigation_items
from polistemics.tasks.navigation.prompt import judged_rubrics
from polistemics.tasks.navigation.questions import NAVIGATION_ENVIRONMENTS

OUTPUT_TOKENS = {ANSWER_STAGE: 250, CODE_STAGE: 80, JUDGE_STAGE: 20}


@dataclass
class NavigationOutput:
    files: NavigationFiles
    build_counts: dict[str, int] = field(default_factory=dict)


def navigation_environments(config: RunConfig):
    return [env for env in NAVIGATION_ENVIRONMENTS if env in config.environment_list]


class Navigation(BaseStage):
    name = "navigation"

    def enabled(self, config: RunConfig) -> bool:
        return NAVIGATION in config.tasks

    async def run(self, state: StudyState) -> None:
        client, config = state.client, state.config
        assert client is not None
        items, counts = [], {}
        for run in state.elections:
            built = build_navigation_items(
                run.evidence,
                run.items,
                environments=navigation_environments(config),
                seed=config.seed,
                parties=config.navigation.parties,
                election_party_names=sorted({p.party.name for p in run.scoped.election.positions}),
                token_budget=config.navigation.context_tokens,
                over_budget=config.navigation.over_budget,
            )
            items.extend(built.items)
            for what, n in built.counts.items():
                counts[what] = counts.get(what, 0) + n
        targets = [state.endpoints[name] for name in config.targets]
        judges = [state.endpoints[name] for name in config.judges]
        coders = [state.endpoints[name] for name in config.stance_coder]
        declare_total(client.listeners, ANSWER_STAGE, len(items) * len(targets) * config.samples)
        answers = await answer_items(client, targets, items, config.samples)
        by_key = {item.key: item for item in items}
        pairs = [(by_key[a.item_key], a) for a in answers if a.ok]
        declare_total(client.listeners, CODE_STAGE, len(pairs) * len(coders))
        codes = await code_answers(client, coders, pairs)
        declare_total(
            client.listeners,
            JUDGE_STAGE,
            sum(len(judged_rubrics(item)) for item, _ in pairs) * len(judges),
            retries=True,
        )
        verdicts = await judge_answers(client, judges, pairs)
        verdicts.sort(
            key=lambda r: (r.item_key, r.model, r.sample_index, r.panel_position, r.rubric.value)
        )
        state.outputs[self.name] = NavigationOutput(
            NavigationFiles(items=items, answers=answers, codes=codes, verdicts=verdicts), counts
        )
        state.log(
            f"navigation: {len(items)} items, {sum(a.ok for a in answers)} answers ok, "
            f"{len(codes)} coder readings, {len(verdicts)} judge records"
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

    def write(self, state: StudyState, run: RunDir) -> None:
        output = state.outputs.get(self.name)
        if not isinstance(output, NavigationOutput):
            remove_navigation_files(run.root)
            remove_navigation_tables(run.tables)
            return
        write_navigation_files(run.root, output.files)
        tables = navigation_tables(
            output.files,
            judge_panel=len(state.config.judges),
            coder_panel=len(state.config.stance_coder),
            build_counts=output.build_counts,
            seed=state.config.seed,
        )
        write_navigation_tables(tables, run.tables)

    def manifest(self, state: StudyState) -> dict:
        output = state.outputs.get(self.name)
        if not isinstance(output, NavigationOutput):
            return {}
        files = output.files
        return task_manifest(
            NAVIGATION,
            environments=navigation_environments(state.config),
            items=len(files.items),
            build_counts=output.build_counts,
            answers=files.answers,
            codes=files.codes,
            verdicts=files.verdicts,
        )

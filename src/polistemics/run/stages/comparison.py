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
from dataclasses import dataclass, field
from math import comb

from polistemics.analyses.comparison import (
    comparison_tables,
    remove_comparison_tables,
    write_comparison_tables,
)
from polistemics.llm.progress import declare_total
from polistemics.prompts import load
from polistemics.records import Stance
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
from polistemics.runlog.comparison import (
    ComparisonFiles,
    remove_comparison_files,
    write_comparison_files,
)
from polistemics.tasks import COMPARISON
from polistemics.tasks.comparison.calls import (
    ANSWER_STAGE,
    CODE_STAGE,
    JUDGE_STAGE,
    answer_items,
    code_answers,
    judge_answers,
)
from polistemics.tasks.comparison.items import build_comparison_items
from polistemics.tasks.comparison.prompt import judged_rubrics
from polistemics.tasks.comparison.questions import COMPARISON_ENVIRONMENTS

OUTPUT_TOKENS = {ANSWER_STAGE: 200, CODE_STAGE: 40, JUDGE_STAGE: 20}


@dataclass
class ComparisonOutput:
    files: ComparisonFiles
    build_counts: dict[str, int] = field(default_factory=dict)


def comparison_environments(config: RunConfig):
    return [env for env in COMPARISON_ENVIRONMENTS if env in config.environment_list]


def possible_pairs(stances: Counter[Stance]) -> tuple[int, int]:
    """How many differing (agree x disagree) and agreeing (same stance) pairs a statement's
    parties make."""
    differing = stances[Stance.AGREE] * stances[Stance.DISAGREE]
    agreeing = sum(comb(n, 2) for n in stances.values())
    return differing, agreeing


class Comparison(BaseStage):
    name = "comparison"

    def enabled(self, config: RunConfig) -> bool:
        return COMPARISON in config.tasks

    async def run(self, state: StudyState) -> None:
        client, config = state.client, state.config
        assert client is not None
        items, counts = [], {}
        for run in state.elections:
            built = build_comparison_items(
                run.evidence,
                run.items,
                environments=comparison_environments(config),
                seed=config.seed,
                differing=config.comparison.differing,
                agreeing=config.comparison.agreeing,
                election_party_names=sorted({p.party.name for p in run.scoped.election.positions}),
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
        state.outputs[self.name] = ComparisonOutput(
            ComparisonFiles(items=items, answers=answers, codes=codes, verdicts=verdicts), counts
        )
        state.log(
            f"comparison: {len(items)} items, {sum(a.ok for a in answers)} answers ok, "
            f"{len(codes)} coder readings, {len(verdicts)} judge records"
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

    def write(self, state: StudyState, run: RunDir) -> None:
        output = state.outputs.get(self.name)
        if not isinstance(output, ComparisonOutput):
            remove_comparison_files(run.root)
            remove_comparison_tables(run.tables)
            return
        write_comparison_files(run.root, output.files)
        tables = comparison_tables(
            output.files,
            judge_panel=len(state.config.judges),
            coder_panel=len(state.config.stance_coder),
            build_counts=output.build_counts,
        )
        write_comparison_tables(tables, run.tables)

    def manifest(self, state: StudyState) -> dict:
        output = state.outputs.get(self.name)
        if not isinstance(output, ComparisonOutput):
            return {}
        files = output.files
        return task_manifest(
            COMPARISON,
            environments=comparison_environments(state.config),
            items=len(files.items),
            build_counts=output.build_counts,
            answers=files.answers,
            codes=files.codes,
            verdicts=files.verdicts,
        )

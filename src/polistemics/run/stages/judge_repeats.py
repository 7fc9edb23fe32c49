"""The judge repeats stage (``judge_repeats`` in the config; paper Sec. 10): after the panel,
each repeat judge judges a seeded sample of answers again (``run.repeats``). Its verdicts go to
``judge_repeats.jsonl``, never to the scores; run.json's ``judge_repeats`` has the flip rates."""

from __future__ import annotations

from polistemics.judging.panel import REPEAT_STAGE
from polistemics.judging.panel import STAGE as JUDGE_STAGE
from polistemics.run.repeats import (
    planned_repeat_calls,
    run_repeats,
    summarise_repeats,
    write_repeats,
)
from polistemics.run.stages.answers import OUTPUT_TOKENS as PANEL_OUTPUT_TOKENS
from polistemics.run.stages.answers import judge_input_tokens
from polistemics.run.stages.base import BaseStage, StudyState
from polistemics.run.stages.planning import PlanRow, PlanState
from polistemics.runlog import RunDir

OUTPUT_TOKENS = PANEL_OUTPUT_TOKENS[JUDGE_STAGE]  # a repeat is a judge call


class JudgeRepeats(BaseStage):
    """Entered whatever the config: without ``judge_repeats`` it repeats nothing."""

    name = "judge_repeats"

    async def run(self, state: StudyState) -> None:
        assert state.client is not None
        config = state.config
        repeats, drawn = await run_repeats(
            state.client, config, state.endpoints, state.items, state.answers
        )
        state.repeat_verdicts, state.repeats_drawn = repeats, drawn
        if config.judge_repeats is not None:
            state.log(
                f"judge repeats: {drawn['items_sampled']} items, "
                f"{drawn['answers_rejudged']} answers, {len(repeats)} repeat records"
            )

    def plan(self, plan: PlanState) -> list[PlanRow]:
        judge_in = judge_input_tokens(plan.items_per_env)
        calls = planned_repeat_calls(plan.config, plan.items_per_env, plan.endpoints)
        rows = [
            plan.row(
                REPEAT_STAGE,
                plan.endpoints[name],
                n,
                plan.cached(REPEAT_STAGE, [name]),
                judge_in,
                OUTPUT_TOKENS,
            )
            for name, n in calls.items()
        ]
        plan.details["judge_repeat_calls_total"] = sum(r.calls for r in rows)
        return rows

    def plan_notes(self, details: dict) -> list[str]:
        if not details.get("judge_repeat_calls_total"):
            return []
        return [
            f"judge_repeats: {details['judge_repeat_calls_total']:,} repeat judge calls "
            "(distinct calls, never served from the panel's cache; never scored)"
        ]

    def write(self, state: StudyState, run: RunDir) -> None:
        if state.repeat_verdicts:
            write_repeats(run.root, state.repeat_verdicts)
        else:  # none this time: no stale file from an earlier config
            run.judge_repeats.unlink(missing_ok=True)

    def manifest(self, state: StudyState) -> dict:
        return {
            "judge_repeats": summarise_repeats(
                state.config,
                state.verdicts,
                state.repeat_verdicts,
                state.items,
                state.repeats_drawn,
            )
        }

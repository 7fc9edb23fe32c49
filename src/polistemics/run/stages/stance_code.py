"""The stance coding stage (issue 16): the coder panel reads every ok answer to an item of a
coded environment (and every swapped-order item's) and every ok closed-book probe answer
(``run.coding``). Writes the mechanism files (``stance_codes.jsonl``, ``prior_probe.jsonl``,
``swapped_items.jsonl`` and their per-election copies: one writer, ``results.write``);
run.json's ``stance_coding``."""

from __future__ import annotations

from polistemics.prompts import load
from polistemics.run.coding import STAGE, run_coding, summarise_codes
from polistemics.run.stages.base import BaseStage, StudyState
from polistemics.run.stages.planning import PlanRow, PlanState, same_calls, tokens
from polistemics.runlog import RunDir

OUTPUT_TOKENS = 20


class StanceCode(BaseStage):
    """Entered whatever the config: without a coder it codes nothing (and says so in run.json)."""

    name = "stance_code"

    async def run(self, state: StudyState) -> None:
        assert state.client is not None
        codes = await run_coding(
            state.client,
            state.config,
            state.endpoints,
            [*state.items, *state.swapped_items],
            state.answers,
            state.probe_answers,
            state.observations,
        )
        state.stance_codes = codes
        if state.config.stance_coder:
            missing = sum(record.stance is None for record in codes)
            state.log(f"stance codes: {len(codes)} coder readings, {missing} missing")

    def plan(self, plan: PlanState) -> list[PlanRow]:
        """First tries per distinct coder endpoint (identical seats share calls, as judges do):
        answers of coded environments and swapped items, and probe answers. Every answer is
        assumed to succeed."""
        config = plan.config
        coded = sum(
            n for (_, env), n in plan.items_per_env.items() if env in config.coded_environments
        )
        answer_codes = (
            (coded + plan.swapped_items) * config.samples * len(config.targets)
            if config.stance_coder
            else 0
        )
        probe_codes = plan.probe_answers
        plan.details["stance_code_subjects"] = {"answers": answer_codes, "probes": probe_codes}
        if not config.stance_coder:
            plan.details["stance_code_calls_total"] = 0
            return []
        code_in = tokens(load("stance_coder_system")) + tokens(load("stance_coder_user")) + 400
        rows = [
            plan.row(
                STAGE,
                plan.endpoints[names[0]],
                answer_codes + probe_codes,
                plan.cached(STAGE, names),
                code_in,
                OUTPUT_TOKENS,
            )
            for names in same_calls(config.stance_coder, plan.endpoints)
        ]
        plan.details["stance_code_calls_total"] = sum(r.calls for r in rows)
        return rows

    def plan_notes(self, details: dict) -> list[str]:
        if not details.get("stance_code_calls_total"):
            return []
        subjects = details["stance_code_subjects"]
        return [
            f"stance_code: {details['stance_code_calls_total']:,} coder calls "
            f"({subjects['answers']:,} answers and {subjects['probes']:,} probe answers per "
            "distinct coder endpoint; one retry per unreadable reply not counted)"
        ]

    def write(self, state: StudyState, run: RunDir) -> None:
        run.write_mechanism_files(
            state.items, state.swapped_items, state.stance_codes, state.probe_answers
        )

    def manifest(self, state: StudyState) -> dict:
        return {
            "stance_coding": summarise_codes(state.config, state.stance_codes, state.probe_answers)
        }

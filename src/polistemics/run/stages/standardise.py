"""The standardise stage: each observation's rationale rewritten as party-neutral evidence
(``evidence.standardise``), election by election; ``evidence.jsonl`` and run.json's
``standardisation`` per election."""

from __future__ import annotations

from polistemics.evidence.standardise import (
    OUTPUT_SCHEMA,
    STAGE,
    StandardisationResult,
    standardise,
    standardise_messages,
)
from polistemics.llm.keys import call_key, request_params
from polistemics.llm.progress import TryHook, declare_more, try_hook
from polistemics.llm.types import Completer
from polistemics.prompts import load
from polistemics.run.config import RunConfig
from polistemics.run.stages.base import BaseStage, ElectionRun, StudyState
from polistemics.run.stages.planning import PlanRow, PlanState, Replayed, tokens
from polistemics.runlog import RunDir
from polistemics.sources.scope import ScopedElection

OUTPUT_TOKENS = 180


async def standardise_election(
    config: RunConfig,
    endpoints,
    scoped: ScopedElection,
    completer: Completer,
    on_try: TryHook | None = None,
) -> StandardisationResult:
    """The stage's calls for one election: the run's, and the dry-run's replay of them."""
    return await standardise(
        scoped.observations,
        completer,
        endpoints[config.standardiser],
        excluded_missing_rationale=len(scoped.excluded_missing_rationale),
        max_attempts=config.standardise_retries + 1,
        on_try=on_try,
    )


class Standardise(BaseStage):
    name = "standardise"
    per_election = True

    async def run_election(self, state: StudyState, run: ElectionRun) -> None:
        assert state.client is not None
        # First tries: one per observation (a rejected rewrite is asked again, and the progress
        # hears of it through the try hook).
        declare_more(
            state.client.listeners,
            STAGE,
            len(run.scoped.observations),
            retries=state.config.standardise_retries > 0,
        )
        result = await standardise_election(
            state.config,
            state.endpoints,
            run.scoped,
            state.client,
            on_try=try_hook(state.client.listeners, STAGE),
        )
        run.evidence = result.evidence
        run.standardisation = result.stats.model_dump(mode="json")
        state.log(
            f"standardise: {run.scoped.election.id}: {len(result.evidence)} kept, "
            f"{len(result.excluded)} rejected after retries"
        )

    async def replay(self, plan: PlanState, replayed: Replayed, completer: Completer) -> None:
        result = await standardise_election(plan.config, plan.endpoints, replayed.scoped, completer)
        replayed.evidence = list(result.evidence)

    def plan(self, plan: PlanState) -> list[PlanRow]:
        config = plan.config
        endpoint = plan.endpoints[config.standardiser]
        observations = sum(len(s.observations) for s in plan.elections)
        tokens_in = tokens(load("standardise_system")) + 100
        cached = _cached_first_tries(plan)
        return [plan.early_row(STAGE, endpoint, observations, cached, tokens_in, OUTPUT_TOKENS)]

    def write(self, state: StudyState, run: RunDir) -> None:
        run.write_evidence(ev for election in state.elections for ev in election.evidence)

    def manifest(self, state: StudyState) -> dict:
        return {
            "elections": {
                run.scoped.election.id: {"standardisation": run.standardisation}
                for run in state.elections
            }
        }


def _cached_first_tries(plan: PlanState) -> int:
    """Exact: the first standardisation prompt of each observation is known before any call."""
    if plan.store is None:
        return 0
    endpoint = plan.endpoints[plan.config.standardiser]
    params = request_params(endpoint, json_schema=OUTPUT_SCHEMA)
    found = 0
    for scoped in plan.elections:
        for position in scoped.observations:
            key = call_key(endpoint, standardise_messages(position), params, 0)
            result = plan.store.get_call(key)
            found += bool(result and result.ok)
    return found

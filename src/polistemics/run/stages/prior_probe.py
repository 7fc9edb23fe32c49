"""The prior probe stage (issue 16): every target asked each observation's question closed-book,
no context (``answers.prior_probe``). Its answers go to the stance coder and the report. Writes
``prior_probe.jsonl`` and each election's copy in ``exports/<election>/`` (removed when the
stage is off: its ``write`` runs whatever the config)."""

from __future__ import annotations

from polistemics.answers.prior_probe import STAGE, election_name, probe_positions, probe_priors
from polistemics.llm.progress import declare_total
from polistemics.prompts import load
from polistemics.run.config import RunConfig
from polistemics.run.stages.base import BaseStage, StudyState
from polistemics.run.stages.planning import PlanRow, PlanState, tokens
from polistemics.runlog import RunDir

OUTPUT_TOKENS = 150


class PriorProbe(BaseStage):
    name = "prior_probe"

    def enabled(self, config: RunConfig) -> bool:
        return config.prior_probe

    async def run(self, state: StudyState) -> None:
        client, config = state.client, state.config
        assert client is not None
        targets = [state.endpoints[name] for name in config.targets]
        positions = state.observations
        names = {
            run.scoped.election.id: election_name(run.scoped.election) for run in state.elections
        }
        total = len(probe_positions(positions)) * len(targets) * config.samples
        declare_total(client.listeners, STAGE, total)
        probes = await probe_priors(client, targets, positions, names, samples=config.samples)
        state.probe_answers = probes
        state.log(
            f"prior probe: {sum(p.ok for p in probes)} ok, {sum(not p.ok for p in probes)} failed"
        )

    def plan(self, plan: PlanState) -> list[PlanRow]:
        """Per target: each probed observation (``probe_positions``) x samples."""
        config = plan.config
        probes = 0
        if config.prior_probe:
            probes = sum(len(probe_positions(s.observations)) for s in plan.elections)
        per_target = probes * config.samples
        plan.probe_answers = per_target * len(config.targets)
        plan.details["prior_probe_calls_total"] = plan.probe_answers
        if not per_target:
            return []
        probe_in = tokens(load("prior_probe_system")) + tokens(load("prior_probe_user")) + 20
        return [
            plan.row(
                STAGE,
                plan.endpoints[name],
                per_target,
                plan.cached(STAGE, [name]),
                probe_in,
                OUTPUT_TOKENS,
            )
            for name in config.targets
        ]

    def plan_notes(self, details: dict) -> list[str]:
        if not details.get("prior_probe_calls_total"):
            return []
        return [
            f"prior_probe: {details['prior_probe_calls_total']:,} closed-book probe calls "
            "(targets x parties x statements x samples)"
        ]

    def write(self, state: StudyState, run: RunDir) -> None:
        run.write_prior_probe(state.probe_answers, state.election_ids)

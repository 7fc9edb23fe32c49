"""The environments stage: each election's evidence built into the information environments of
every variant (``environments.build``; Vague's rewrites come from the generator and the auditor,
``environments.vague``), and the swapped-order Contradictory items. Writes
``swapped_items.jsonl`` (the release folders' items are written with the answers); run.json's
``environments`` (with each composition's kept and dropped items and its drops per part rule,
issue 30) and ``vague`` per election.

``environments.build.build_environments`` is the one way items are built, here and in
``polistemics environments build``."""

from __future__ import annotations

from polistemics.conditions import Environment, Variant
from polistemics.environments.basis import EnvironmentInputError
from polistemics.environments.build import VagueSettings, build_environments
from polistemics.environments.compose import planned_composition_items
from polistemics.environments.conflict import select_conflict_parties, swapped_order_items
from polistemics.environments.embeddings import make_embedder
from polistemics.environments.noisy import noisy_item_count
from polistemics.environments.vague import (
    AUDIT_STAGE,
    GENERATION_STAGE,
    generate_vague_rewrites,
)
from polistemics.llm.progress import declare_more, try_hook
from polistemics.llm.types import Completer
from polistemics.prompts import load
from polistemics.records import Evidence, Position
from polistemics.run.config import RunConfig
from polistemics.run.stages.base import BaseStage, CannotReplay, ElectionRun, StudyState
from polistemics.run.stages.planning import (
    EVIDENCE_TOKENS,
    PlanRow,
    PlanState,
    Replayed,
    tokens,
)
from polistemics.runlog import RunDir
from polistemics.sources.scope import ScopedElection

OUTPUT_TOKENS = {GENERATION_STAGE: 180, AUDIT_STAGE: 10}
# What the dry run's per-election item counts rest on (``environment_counts``).
ITEMS_FROM = {
    "stances": "the stances, before standardisation rejects any and Vague rewrites fail",
    "store": "the stored evidence and Vague rewrites",
}


class Environments(BaseStage):
    name = "environments"
    per_election = True

    async def run_election(self, state: StudyState, run: ElectionRun) -> None:
        assert state.client is not None
        config, endpoints = state.config, state.endpoints
        embedder = make_embedder(config.embeddings, cache_dir=state.run_dir / "embeddings")
        vague = VagueSettings(
            state.client,
            endpoints[config.vague_generator],
            endpoints[config.vague_auditor],
            max_attempts=config.vague_max_tries,
            on_try=try_hook(state.client.listeners, GENERATION_STAGE),
        )
        positions: list[Position] = run.scoped.election.positions
        if Environment.VAGUE in config.environment_list:
            # One rewrite per passage, first tries (a rejected one is asked again); how many are
            # audited is known only once they are written.
            declare_more(
                state.client.listeners,
                GENERATION_STAGE,
                len(run.evidence),
                retries=config.vague_max_tries > 1,
            )
        full = await build_environments(
            run.evidence,
            environments=config.environment_list,
            variant=Variant.FULL,
            seed=config.seed,
            positions=positions,
            embedder=embedder,
            vague=vague,
            compositions=config.composition_list,
        )
        run.items = list(full.items)
        run.swapped_items = swapped_order_items(
            full.items, config.contradictory_swapped, config.seed
        )
        run.environments = [_summary(s, Variant.FULL) for s in full.summaries]
        run.vague = full.vague.report.as_dict() if full.vague else {}
        rewrites = full.vague.rewrites if full.vague else []
        for variant in config.variants[1:]:
            wanted = [e for e in variant.environments if e in config.environment_list]
            if not wanted:
                continue
            built = await build_environments(
                run.evidence,
                environments=wanted,
                variant=variant,
                seed=config.seed,
                positions=positions,
                embedder=embedder,
                rewrites=rewrites,
            )
            run.items.extend(built.items)
            run.environments.extend(_summary(s, variant) for s in built.summaries)
        election = run.scoped.election.id
        for s in run.environments:
            state.log(
                f"environments: {election}: {s['variant']}/{s['environment']}: "
                f"{s['kept']} kept, {s['dropped']} dropped"
            )
        if run.swapped_items:
            state.log(
                f"environments: {election}: swapped-order Contradictory: "
                f"{len(run.swapped_items)} items (answered and coded, not judged)"
            )

    async def replay(self, plan: PlanState, replayed: Replayed, completer: Completer) -> None:
        """Only the Vague rewrites: they decide how many Vague items the run gets."""
        config, endpoints = plan.config, plan.endpoints
        if Environment.VAGUE not in config.environment_list or not replayed.evidence:
            return
        try:
            outcome = await generate_vague_rewrites(
                replayed.evidence,
                completer,
                endpoints[config.vague_generator],
                endpoints[config.vague_auditor],
                seed=config.seed,
                max_attempts=config.vague_max_tries,
            )
        except EnvironmentInputError as exc:
            raise CannotReplay(str(exc)) from exc
        replayed.vague_kept = len(outcome.rewrites)
        replayed.vague_rewritten = [r.observation_id for r in outcome.rewrites]

    def plan(self, plan: PlanState) -> list[PlanRow]:
        config = plan.config
        for scoped in plan.elections:
            replayed = plan.replays.get(scoped.election.id)
            counts = environment_counts(scoped, config, replayed)
            full_contradictory = counts.get((Variant.FULL, Environment.CONTRADICTORY), 0)
            n_swapped = swapped_count(config, full_contradictory)
            election = plan.details["elections"][scoped.election.id]
            election["items_from"] = "store" if replayed is not None else "stances"
            election["items"] = {f"{v.value}/{e.value}": n for (v, e), n in counts.items()}
            if n_swapped:
                election["items"]["full/contradictory_swapped"] = n_swapped
            for key, n in counts.items():
                plan.items_per_env[key] = plan.items_per_env.get(key, 0) + n
            plan.swapped_items += n_swapped
        plan.details["items_per_environment"] = {
            f"{v.value}/{e.value}": n for (v, e), n in plan.items_per_env.items()
        }
        if Environment.VAGUE not in config.environment_list:
            return []
        observations = sum(len(s.observations) for s in plan.elections)
        rows = []
        for stage, name, prompt in (
            (GENERATION_STAGE, config.vague_generator, "vague_system"),
            (AUDIT_STAGE, config.vague_auditor, "vague_audit_system"),
        ):
            rows.append(
                plan.early_row(
                    stage,
                    plan.endpoints[name],
                    observations,
                    plan.cached(stage, [name]),
                    tokens(load(prompt)) + EVIDENCE_TOKENS,
                    OUTPUT_TOKENS[stage],
                )
            )
        return rows

    def plan_notes(self, details: dict) -> list[str]:
        return [
            f"{election}: {info['observations']} observations; items after drops "
            f"(from {ITEMS_FROM.get(info.get('items_from'), 'the stances')}): "
            + ", ".join(f"{k}={v}" for k, v in info["items"].items())
            for election, info in details["elections"].items()
        ]

    def write(self, state: StudyState, run: RunDir) -> None:
        run.write_swapped_items(state.swapped_items)

    def manifest(self, state: StudyState) -> dict:
        return {
            "elections": {
                run.scoped.election.id: {"environments": run.environments, "vague": run.vague}
                for run in state.elections
            }
        }


def environment_counts(
    scoped: ScopedElection, config: RunConfig, replayed: Replayed | None = None
) -> dict[tuple[Variant, Environment], int]:
    """Items per variant and environment: from the stances alone (no model needed), or, when
    the store holds the early stages (``replayed``), from the evidence and Vague rewrites a run
    would get (rejected observations and failed rewrites are no items). The drops known from
    the stances are made here too: Contradictory and Counterfactual need an opposing party,
    Noisy four distractor candidates (``environments.noisy.noisy_item_count``)."""
    if replayed is not None:
        evidence = replayed.evidence
    else:
        evidence = [Evidence(position=p, text="[PARTY]") for p in scoped.observations]
    selection = select_conflict_parties(evidence, scoped.election.positions)
    kept_conflict = len(selection.choices)
    counts = {}
    for variant in config.variants:
        for env in variant.environments:
            if env not in config.environment_list:
                continue
            n = len(evidence)
            if env in (Environment.CONTRADICTORY, Environment.COUNTERFACTUAL):
                n = kept_conflict
            elif env is Environment.NOISY:
                n = noisy_item_count(evidence)  # no item without four distractor candidates
            elif env is Environment.VAGUE and replayed is not None:
                n = replayed.vague_kept or 0
            counts[(variant, env)] = n
    for composition in config.composition_list:
        rewritten = replayed.vague_rewritten if replayed is not None else None
        planned = planned_composition_items(evidence, composition, selection, rewritten)
        counts[(Variant.FULL, composition)] = len(planned.items)
    return counts


def swapped_count(config: RunConfig, contradictory_items: int) -> int:
    """Swapped-order Contradictory items of one election (``environments.conflict.
    swapped_order_items``): all of them, the ceiling of half, or none."""
    if config.contradictory_swapped == "all":
        return contradictory_items
    if config.contradictory_swapped == "half":
        return (contradictory_items + 1) // 2
    return 0


def _summary(summary, variant: Variant) -> dict:
    return {
        "variant": variant.value,
        "environment": summary.environment.value,
        "kept": summary.kept,
        "dropped": summary.dropped,
        **summary.details,
    }

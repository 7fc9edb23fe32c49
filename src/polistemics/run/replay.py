"""What the early stages of a run would produce, replayed from its store without a model call.

A dry-run on a run directory must agree with what a run would do. Standardisation and Vague
generation drop observations (rejected evidence, rewrites that failed the audit on every try),
and only their calls say which. When the store holds every call these stages would make, the
stages' own code is run here against the store (``StoreReplay``), so the plan counts exactly the
items a run would build; as soon as one call is missing the replay stops and the plan falls back
to its estimate from the stances.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass

from polistemics.conditions import Environment
from polistemics.environments.basis import EnvironmentInputError
from polistemics.environments.vague import generate_vague_rewrites
from polistemics.evidence.standardise import standardise
from polistemics.llm.keys import call_key, request_params
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.store import RunStore
from polistemics.llm.types import CallResult, Message
from polistemics.records import Evidence
from polistemics.run.config import RunConfig
from polistemics.sources.scope import ScopedElection


class NotInStore(Exception):
    """A call the replayed stage would make is not in the store: a run would make it."""


class StoreReplay:
    """A ``Completer`` that answers from the run store only, as a rerun's client would."""

    def __init__(self, store: RunStore):
        self.store = store
        self.calls: Counter[str] = Counter()  # calls served per stage, as a run would make them

    async def complete(
        self,
        endpoint: ModelEndpoint,
        messages: list[Message],
        *,
        stage: str,
        sample_index: int = 0,
        json_schema: dict | None = None,
        grammar: str | None = None,
    ) -> CallResult:
        params = request_params(endpoint, json_schema=json_schema, grammar=grammar)
        result = self.store.get_call(call_key(endpoint, messages, params, sample_index))
        if result is None:
            raise NotInStore(stage)
        self.calls[stage] += 1
        return result


@dataclass(frozen=True)
class Replayed:
    """One election's early stages as a run would find them in the store."""

    evidence: list[Evidence]
    vague_kept: int | None  # observations with an accepted Vague rewrite (None: no Vague)
    calls: Counter[str]  # the calls these stages make per stage (all of them in the store)


def replay_early_stages(
    config: RunConfig,
    scoped: ScopedElection,
    endpoints: dict[str, ModelEndpoint],
    store: RunStore,
) -> Replayed | None:
    """The evidence and Vague survivors a run would get, or None when the store lacks a call."""
    try:
        return asyncio.run(_replay(config, scoped, endpoints, StoreReplay(store)))
    except (NotInStore, EnvironmentInputError):
        return None


async def _replay(
    config: RunConfig,
    scoped: ScopedElection,
    endpoints: dict[str, ModelEndpoint],
    completer: StoreReplay,
) -> Replayed:
    standardised = await standardise(
        scoped.observations,
        completer,
        endpoints[config.standardiser],
        excluded_missing_rationale=len(scoped.excluded_missing_rationale),
        max_attempts=config.standardise_retries + 1,
    )
    evidence = list(standardised.evidence)
    vague_kept = None
    if Environment.VAGUE in config.environment_list and evidence:
        outcome = await generate_vague_rewrites(
            evidence,
            completer,
            endpoints[config.vague_generator],
            endpoints[config.vague_auditor],
            seed=config.seed,
            max_attempts=config.vague_max_tries,
        )
        vague_kept = len(outcome.rewrites)
    return Replayed(evidence, vague_kept, completer.calls)

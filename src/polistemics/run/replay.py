"""What the early stages of a run would produce, replayed from its store without a model call.

A dry-run on a run directory must agree with what a run would do. Standardisation and Vague
generation drop observations (rejected evidence, rewrites that failed the audit on every try),
and only their calls say which. When the store holds every call these stages would make, the
stages' own code is run here against the store (``StoreReplay``; each per-election stage's
``replay``), so the plan counts exactly the items a run would build; as soon as one call is
missing the replay stops and the plan falls back to its estimate from the stances.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence

from polistemics.llm.keys import call_key, request_params
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.store import RunStore
from polistemics.llm.types import CallResult, Message
from polistemics.run.stages.base import CannotReplay, Stage
from polistemics.run.stages.planning import PlanState, Replayed
from polistemics.sources.scope import ScopedElection


class NotInStore(CannotReplay):
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


def replay_election(
    stages: Sequence[Stage], plan: PlanState, scoped: ScopedElection, store: RunStore
) -> Replayed | None:
    """What the per-election stages would produce for one election, or None when the store
    lacks a call (or a stage cannot be replayed)."""
    completer = StoreReplay(store)
    replayed = Replayed(scoped)
    try:
        asyncio.run(_replay(stages, plan, replayed, completer))
    except CannotReplay:
        return None
    replayed.calls = completer.calls
    return replayed


async def _replay(
    stages: Sequence[Stage], plan: PlanState, replayed: Replayed, completer: StoreReplay
) -> None:
    for stage in stages:
        if stage.per_election:
            await stage.replay(plan, replayed, completer)

"""What the stages share while ``--dry-run`` plans a run: its inputs, the counts earlier stages
hand on (items per environment, swapped items, probe answers), the rows and the details.

Token figures are estimates (prompt characters / 4 plus a typical output length per call
stage, ``PlanState.row``'s ``output_tokens``); cost uses the prices handed in (``llm.pricing``:
OpenRouter's list or the registry), each row naming where its price came from.

Each row has three costs side by side (docs/guides/prompt-caching.md): online; batch (the
online cost times the share the model's vendor bills through its batch API,
``llm.pricing.batch_price_share``; n/a where none is known); and cached prefix (online, with the
input tokens a provider's prompt cache would serve, ``PrefixGroup``, at its cached-input rate).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from polistemics.conditions import Environment, Variant
from polistemics.llm.keys import canonical_json
from polistemics.llm.pricing import Price, batch_price_share, registry_price
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.store import RunStore
from polistemics.records import Evidence
from polistemics.run.config import RunConfig
from polistemics.sources.scope import ScopedElection

# Typical sizes in tokens, used only for estimates.
EVIDENCE_TOKENS = 150


# The shortest prefix OpenAI's and Anthropic's prompt caches serve (tokens): a shorter shared
# prefix is billed in full, so the cached-prefix estimate counts only longer ones.
MIN_CACHED_PREFIX_TOKENS = 1024


@dataclass(frozen=True)
class PrefixGroup:
    """Calls that share a prompt prefix: how many calls, how many distinct prefixes among them
    (each one's first call writes it to the cache), and the prefix's tokens."""

    calls: int
    prefixes: int
    tokens: int

    @property
    def cacheable_tokens(self) -> int:
        """Input tokens read from the cache when the group's calls go together: every call but
        each prefix's first, if the prefix is long enough to be cached at all."""
        if self.tokens < MIN_CACHED_PREFIX_TOKENS:
            return 0
        return max(0, self.calls - self.prefixes) * self.tokens


@dataclass
class PlanRow:
    stage: str
    model: str
    calls: int
    cached: int
    input_tokens: int
    output_tokens: int
    cost: float | None
    price_source: str
    # Of ``input_tokens``, those a provider's prompt cache would serve (``PrefixGroup``).
    cached_input_tokens: int = 0
    batch_cost: float | None = None  # n/a: no batch discount known for the model
    cached_prefix_cost: float | None = None  # n/a: cached tokens and no cached-input rate

    @property
    def new(self) -> int:
        return self.calls - self.cached


@dataclass
class Replayed:
    """One election's early stages as a run would find them in the store (``run.replay``):
    what the replayed stages produced, and the calls they made per call stage (all of them in
    the store)."""

    scoped: ScopedElection
    evidence: list[Evidence] = field(default_factory=list)
    vague_kept: int | None = None  # observations with an accepted Vague rewrite (None: no Vague)
    vague_rewritten: list[str] | None = None  # their observation ids (for compositions)
    calls: Counter[str] = field(default_factory=Counter)


@dataclass
class PlanState:
    """One dry-run: its inputs, what earlier stages' plans counted, and the result so far."""

    config: RunConfig
    elections: list[ScopedElection]
    endpoints: dict[str, ModelEndpoint]
    store: RunStore | None
    prices: Mapping[str, Price] = field(default_factory=dict)
    # The store's successful calls per (call stage, endpoint name).
    stored: dict[tuple[str, str], int] = field(default_factory=dict)
    # Per election id: its early stages replayed from the store, or None (a call is missing).
    replays: dict[str, Replayed | None] = field(default_factory=dict)
    # Counted by the stages' plans, for the stages after them.
    items_per_env: dict[tuple[Variant, Environment], int] = field(default_factory=dict)
    swapped_items: int = 0
    probe_answers: int = 0  # closed-book probe answers of all targets
    details: dict = field(default_factory=dict)

    @property
    def served(self) -> Counter[str] | None:
        """The calls of every replayed stage per call stage, when every election's early stages
        replayed from the store (their counts are then exact, all cached); else None."""
        if not self.elections or any(r is None for r in self.replays.values()):
            return None
        return sum((r.calls for r in self.replays.values() if r is not None), Counter())

    def cached(self, stage: str, names: Iterable[str]) -> int:
        """Successful stored calls of a call stage by any of these endpoint names."""
        return sum(self.stored.get((stage, name), 0) for name in names)

    def row(
        self,
        stage: str,
        endpoint: ModelEndpoint,
        calls: int,
        cached: int,
        input_tokens: int,
        output_tokens: int,
        prefixes: Iterable[PrefixGroup] = (),
    ) -> PlanRow:
        """A row: ``input_tokens`` and ``output_tokens`` per new call (cached ones cost
        nothing); ``prefixes``: the stage's calls grouped by shared prompt prefix, all of them
        (the new calls' share of their cacheable tokens is counted)."""
        price = self.prices.get(endpoint.name) or registry_price(endpoint)
        cached = min(cached, calls)
        new = calls - cached
        tin, tout = new * input_tokens, new * output_tokens
        cacheable = sum(group.cacheable_tokens for group in prefixes)
        cached_in = min(tin, cacheable * new // calls) if calls else 0
        online = price.cost(tin, tout)
        share = batch_price_share(endpoint)
        return PlanRow(
            stage,
            endpoint.name,
            calls,
            cached,
            tin,
            tout,
            online,
            price.source,
            cached_input_tokens=cached_in,
            batch_cost=None if online is None or share is None else online * share,
            cached_prefix_cost=price.cost(tin, tout, cached_in),
        )

    def early_row(
        self,
        stage: str,
        endpoint: ModelEndpoint,
        estimate: int,
        cached: int,
        input_tokens: int,
        output_tokens: int,
    ) -> PlanRow:
        """A row of a replayable stage: exact and all cached when every election replayed."""
        served = self.served
        if served is not None:
            estimate = cached = served[stage]
        return self.row(stage, endpoint, estimate, cached, input_tokens, output_tokens)


def tokens(text: str) -> int:
    return max(1, len(text) // 4)


def endpoint_identity(endpoint: ModelEndpoint) -> tuple[str, str, str]:
    """What a call key knows of an endpoint: where it is served, the model, the parameters."""
    return (
        endpoint.resolved_base_url,
        endpoint.model,
        canonical_json(endpoint.generation_params()),
    )


def same_calls(names: Iterable[str], endpoints: Mapping[str, ModelEndpoint]) -> list[list[str]]:
    """Seat names grouped by endpoint identity, first seen first: seats that are the same
    endpoint (location, model, parameters) make the same calls, which are stored once under
    whichever seat's name called first, so a panel plans one row per group."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for name in dict.fromkeys(names):
        groups.setdefault(endpoint_identity(endpoints[name]), []).append(name)
    return list(groups.values())


def stored_ok(store: RunStore | None) -> dict[tuple[str, str], int]:
    """Successful stored calls per (call stage, endpoint name)."""
    if store is None:
        return {}
    counts: dict[tuple[str, str], int] = {}
    for row in store.call_stats():
        key = (row["stage"], row["endpoint"])
        counts[key] = counts.get(key, 0) + row["calls"] - (row["errors"] or 0)
    return counts

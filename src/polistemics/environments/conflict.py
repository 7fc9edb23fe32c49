"""Contradictory and Counterfactual (App. E.3): another party's evidence presented as the target's.

For each observation the candidates are the other in-scope parties that have evidence on the same
statement with the strictly opposing stance (Agree versus Disagree). Observations without one
(every Neutral observation among them) are excluded from both environments.

Candidates are ranked by (distance to the target party, party id), ascending. Contradictory uses
the first (ideologically closest), Counterfactual the last (farthest). On ties this means the
smallest party id for the closest and the largest for the farthest: the rule that reproduces
every tied choice in the authors' Dutch release (1 tie in Contradictory, 28 in Counterfactual).

Distances use every stance of the two parties that ``positions`` holds (pass the whole
election's positions, including those without a rationale; the evidence's own positions are
always included). In the Dutch release every position is in scope, so both readings coincide.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from polistemics.conditions import Environment, Variant
from polistemics.environments.basis import (
    check_evidence,
    make_item,
    party_label,
    shared_text,
    target_chunk,
)
from polistemics.environments.distance import PartyDistances
from polistemics.records import Evidence, Position
from polistemics.runlog.items import Chunk, EnvironmentItem


@dataclass(frozen=True)
class ConflictChoice:
    """The strictly opposing parties of one observation, ranked closest first."""

    target: Evidence
    ranked: tuple[tuple[Evidence, Fraction], ...]

    @property
    def closest(self) -> Evidence:
        return self.ranked[0][0]

    @property
    def farthest(self) -> Evidence:
        return self.ranked[-1][0]

    @property
    def closest_is_tied(self) -> bool:
        return len(self.ranked) > 1 and self.ranked[0][1] == self.ranked[1][1]

    @property
    def farthest_is_tied(self) -> bool:
        return len(self.ranked) > 1 and self.ranked[-1][1] == self.ranked[-2][1]


@dataclass
class ConflictSelection:
    choices: dict[str, ConflictChoice] = field(default_factory=dict)  # in evidence order
    excluded: list[str] = field(default_factory=list)  # observation ids without opposing party


def select_conflict_parties(
    evidence: Sequence[Evidence], positions: Iterable[Position] = ()
) -> ConflictSelection:
    check_evidence(evidence)
    distances = PartyDistances.from_positions([*positions, *(ev.position for ev in evidence)])
    by_statement: dict[str, list[Evidence]] = {}
    for ev in evidence:
        by_statement.setdefault(ev.position.statement.id, []).append(ev)

    selection = ConflictSelection()
    for ev in evidence:
        target = ev.position
        opposing = [
            other
            for other in by_statement[target.statement.id]
            if other.position.party.id != target.party.id
            and other.position.stance.strictly_opposes(target.stance)
        ]
        if not opposing:
            selection.excluded.append(ev.observation_id)
            continue
        scored = []
        for other in opposing:
            d = distances.distance(target.party.id, other.position.party.id)
            assert d is not None  # both answered this statement
            scored.append((other, d))
        scored.sort(key=lambda pair: (pair[1], pair[0].position.party.id))
        selection.choices[ev.observation_id] = ConflictChoice(target=ev, ranked=tuple(scored))
    return selection


@dataclass
class ConflictBuild:
    items: list[EnvironmentItem]
    excluded: list[str]  # observation ids without a strictly opposing party


def borrowed_chunk(source: Evidence, label: str) -> Chunk:
    """Another party's evidence written as if it were about the target party."""
    return Chunk(
        text=shared_text(source.filled(label)),
        role="target",
        party_id=source.position.party.id,
        statement_id=source.position.statement.id,
        stance=source.position.stance,
    )


def build_contradictory_items(
    evidence: Sequence[Evidence],
    *,
    positions: Iterable[Position] = (),
    variant: Variant = Variant.FULL,
    counterbalance_order: bool = False,
    selection: ConflictSelection | None = None,
) -> ConflictBuild:
    """The evidence first, then the closest opposing party's evidence (``evidence_index=0``).

    With ``counterbalance_order`` every second kept observation (in observation-id order) shows
    the opposing passage first, so each order is used for half of the items.
    """
    selection = selection or select_conflict_parties(evidence, positions)
    swapped = set(sorted(selection.choices)[1::2]) if counterbalance_order else set()
    items = []
    for obs_id, choice in selection.choices.items():
        ev = choice.target
        label = party_label(ev.position.party, variant, observation_id=obs_id)
        chunks = [target_chunk(ev, label), borrowed_chunk(choice.closest, label)]
        index = 0
        if obs_id in swapped:
            chunks.reverse()
            index = 1
        items.append(
            make_item(
                ev,
                Environment.CONTRADICTORY,
                variant,
                chunks,
                evidence_index=index,
                conflict_party_id=choice.closest.position.party.id,
            )
        )
    return ConflictBuild(items=items, excluded=list(selection.excluded))


def build_counterfactual_items(
    evidence: Sequence[Evidence],
    *,
    positions: Iterable[Position] = (),
    variant: Variant = Variant.FULL,
    selection: ConflictSelection | None = None,
) -> ConflictBuild:
    """The evidence replaced by the farthest opposing party's; the expected stance is theirs."""
    selection = selection or select_conflict_parties(evidence, positions)
    items = []
    for obs_id, choice in selection.choices.items():
        ev, source = choice.target, choice.farthest
        label = party_label(ev.position.party, variant, observation_id=obs_id)
        items.append(
            make_item(
                ev,
                Environment.COUNTERFACTUAL,
                variant,
                [borrowed_chunk(source, label)],
                expected_stance=source.position.stance,
                conflict_party_id=source.position.party.id,
            )
        )
    return ConflictBuild(items=items, excluded=list(selection.excluded))


SwappedOrder = Literal["none", "all", "half"]


def swapped_order_items(
    items: Iterable[EnvironmentItem], which: SwappedOrder, seed: int = 0
) -> list[EnvironmentItem]:
    """Each Contradictory item again with its two chunks in the other order (issue 16): the
    opposing party's passage first when the item showed the party's own first.

    ``which``: every Contradictory item (``"all"``), a seeded half (``"half"``: the ceiling of
    half the items of each variant, drawn from ``seed`` over the sorted observation ids, so a
    rerun with the same seed draws the same half) or none. The copies keep every other field
    (the expected stance among them); only ``chunks``, ``evidence_index`` and ``chunk_order``
    differ, and their keys end in ``|swapped``. Together with the originals they separate a
    preference for the first passage from a preference for the party's real position.
    """
    if which == "none":
        return []
    by_variant: dict[Variant, list[EnvironmentItem]] = {}
    for item in items:
        if item.environment is Environment.CONTRADICTORY and not item.swapped:
            by_variant.setdefault(item.variant, []).append(item)
    chosen: list[EnvironmentItem] = []
    for variant, members in by_variant.items():
        members = sorted(members, key=lambda item: item.observation_id)
        if which == "half":
            rng = random.Random(f"{seed}/contradictory_swapped/{variant.value}")
            picked = {i.key for i in rng.sample(members, (len(members) + 1) // 2)}
            members = [item for item in members if item.key in picked]
        chosen.extend(members)
    return [_swapped(item) for item in chosen]


def _swapped(item: EnvironmentItem) -> EnvironmentItem:
    if len(item.chunks) != 2 or item.evidence_index not in (0, 1):
        raise ValueError(f"item '{item.key}' is not a two-chunk Contradictory item")
    return item.model_copy(
        update={
            "chunks": list(reversed(item.chunks)),
            "evidence_index": 1 - item.evidence_index,
            "chunk_order": "swapped",
        }
    )

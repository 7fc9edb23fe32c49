"""What every environment builder shares: input checks, party labels and the item skeleton."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from pydantic import BaseModel

from polistemics.conditions import ENVIRONMENT_ORDER, Environment, Variant
from polistemics.records import Evidence, Party, Position, Stance
from polistemics.runlog.items import ENGLISH, Chunk, EnvironmentItem


class EnvironmentInputError(ValueError):
    """The evidence handed to a builder cannot be used; the message names the record and field."""


def check_evidence(evidence: Sequence[Evidence]) -> None:
    """One election, each observation once."""
    seen: set[str] = set()
    elections = {ev.position.election_id for ev in evidence}
    if len(elections) > 1:
        raise EnvironmentInputError(
            f"evidence mixes elections {sorted(elections)}: build environments per election"
        )
    for ev in evidence:
        if ev.observation_id in seen:
            raise EnvironmentInputError(f"evidence for {ev.observation_id} is given twice")
        seen.add(ev.observation_id)


def party_label(party: Party, variant: Variant, *, observation_id: str) -> str:
    """The name the answerer sees: the real name, or the anonymised label in that ablation."""
    if variant is Variant.ANONYMIZED:
        return anonymized_label(party, observation_id=observation_id)
    return party.name


def anonymized_label(party: Party, *, observation_id: str) -> str:
    if not party.anonymized_label:
        raise EnvironmentInputError(
            f"{observation_id}: party '{party.id}' has no anonymized_label "
            "(the scope step assigns one to every in-scope party)"
        )
    return party.anonymized_label


def output_language(position: Position, variant: Variant) -> str:
    return ENGLISH if variant is Variant.ENGLISH else position.language


def shared_text(text: str) -> str:
    """``text`` as the one string of its value that every chunk showing it holds: a passage is
    shown in several environments and variants, and as a distractor in several Noisy items, and
    each filling of its label made a new copy (about 2 MB of a paper-sized study's items, 16 MB
    at 8 times its size, issue 32). The interned string is freed with its last chunk."""
    return sys.intern(text)


def target_chunk(ev: Evidence, label: str, *, stance: Stance | None = None) -> Chunk:
    """The observation's own evidence, ``[PARTY]`` filled with ``label``."""
    return Chunk(
        text=shared_text(ev.filled(label)),
        role="target",
        party_id=ev.position.party.id,
        statement_id=ev.position.statement.id,
        stance=stance if stance is not None else ev.position.stance,
    )


def make_item(
    ev: Evidence,
    environment: Environment,
    variant: Variant,
    chunks: list[Chunk],
    *,
    evidence_index: int | None = None,
    expected_stance: Stance | None = None,
    conflict_party_id: str | None = None,
    vague_mode: int | None = None,
) -> EnvironmentItem:
    pos = ev.position
    item = EnvironmentItem(
        observation_id=sys.intern(ev.observation_id),  # one string for its items, not one each
        election_id=pos.election_id,
        party_id=pos.party.id,
        party_name=pos.party.name,
        party_anonymized=pos.party.anonymized_label,
        statement_id=pos.statement.id,
        statement_number=pos.statement.number,
        statement_text=pos.statement.text,
        stance_label=pos.stance,
        rationale_text=pos.rationale,
        environment=environment,
        variant=variant,
        language=pos.language,
        output_language=output_language(pos, variant),
        chunks=chunks,
        evidence_index=evidence_index,
        expected_stance=expected_stance,
        conflict_party_id=conflict_party_id,
        vague_mode=vague_mode,
    )
    for model in (item, *chunks):
        _share_fields_set(model)
    return item


# pydantic keeps, per instance, the set of the fields given to it (about 2.2 KB of an item's
# 3 KB, 0.7 KB of a chunk's); items and chunks given the same fields share one such set. Safe:
# the models are frozen, and ``model_copy`` copies the set before adding to it.
_FIELDS_SETS: dict[frozenset[str], set[str]] = {}


def _share_fields_set(model: BaseModel) -> None:
    given = model.__pydantic_fields_set__
    shared = _FIELDS_SETS.setdefault(frozenset(given), given)
    if shared is not given:
        object.__setattr__(model, "__pydantic_fields_set__", shared)


def observation_major(
    evidence: Sequence[Evidence], items: Sequence[EnvironmentItem]
) -> list[EnvironmentItem]:
    """Items in the release's row order: evidence order, then environments in Table 1 order
    (compositions after the six)."""
    order = {ev.observation_id: i for i, ev in enumerate(evidence)}
    rank = {env: i for i, env in enumerate(ENVIRONMENT_ORDER)}
    return sorted(items, key=lambda it: (order[it.observation_id], rank[it.environment]))

"""Noisy (App. E.2): the evidence in the middle of five chunks, among four similar distractors.

Layout, as in every Noisy row of the authors' Dutch release (240 of 240):

    [0] other party, same statement     (the more similar of the two)
    [1] other party, same statement
    [2] the target evidence             (``evidence_index = 2``)
    [3] same party, another statement   (the more similar of the two)
    [4] same party, another statement

Other parties' passages are filled with their anonymised labels (so they read as evidence about
someone else); the same party's passages use the target's label. Candidates are ranked by the
cosine similarity of their standardised texts (with the ``[PARTY]`` placeholder, so labels do not
sway it) to the target's, rounded to 6 decimals, ties by party id then statement number. When a
pool has fewer than two candidates the other pool makes up the difference (the target stays at
index 2); an observation with fewer than four candidates in all is excluded. Within a pair the
more similar passage comes first (our choice: the release's pairs show no consistent order).

The release does not name its embedding model. Rebuilt from its Dutch Baseline evidence with the
Universal Sentence Encoder, the same two other-party sources are chosen for 65 of 240
observations, the same two own-statement sources for 28, all four for 8 (chance: about 11, 0.6
and 0.03); 459 of the 960 distractors coincide.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from polistemics.conditions import Environment, Variant
from polistemics.environments.basis import (
    anonymized_label,
    check_evidence,
    make_item,
    party_label,
    target_chunk,
)
from polistemics.environments.embeddings import Embedder
from polistemics.records import Evidence
from polistemics.runlog.items import Chunk, EnvironmentItem

TARGET_INDEX = 2
PER_POOL = 2
DISTRACTORS = 2 * PER_POOL
SIMILARITY_DECIMALS = 6


@dataclass
class NoisyBuild:
    items: list[EnvironmentItem]
    excluded: list[str]  # observation ids with fewer than four distractor candidates


def _ranked(
    candidates: list[int], similarity_row: np.ndarray, evidence: Sequence[Evidence]
) -> list[int]:
    def key(j: int) -> tuple:
        pos = evidence[j].position
        return (-similarity_row[j], pos.party.id, pos.statement.number, pos.statement.id)

    return sorted(candidates, key=key)


def pick_distractors(
    i: int,
    evidence: Sequence[Evidence],
    similarity_row: np.ndarray,
    exclude_parties: frozenset[str] = frozenset(),
) -> tuple[list[int], list[int]] | None:
    """Indices of the (other-party, same-party) distractors of observation ``i``, or None.

    ``exclude_parties``: parties whose passage on the statement may not be a distractor (a
    composition shows another party's passage as a [TARGET]; it must not appear twice).
    """
    target = evidence[i].position
    others = [
        j
        for j, ev in enumerate(evidence)
        if ev.position.statement.id == target.statement.id
        and ev.position.party.id != target.party.id
        and ev.position.party.id not in exclude_parties
    ]
    same = [
        j
        for j, ev in enumerate(evidence)
        if ev.position.party.id == target.party.id
        and ev.position.statement.id != target.statement.id
    ]
    if len(others) + len(same) < DISTRACTORS:
        return None
    others = _ranked(others, similarity_row, evidence)
    same = _ranked(same, similarity_row, evidence)
    n_others = min(len(others), max(PER_POOL, DISTRACTORS - len(same)))
    return others[:n_others], same[: DISTRACTORS - n_others]


def noisy_item_count(evidence: Sequence[Evidence]) -> int:
    """How many items ``build_noisy_items`` makes of ``evidence``, without embeddings: the
    observations with at least ``DISTRACTORS`` candidates (other parties' passages on the
    statement and the party's passages on other statements, as ``pick_distractors`` counts
    them); the similarity only orders the candidates. For the dry run's plan."""
    by_statement = Counter(ev.position.statement.id for ev in evidence)
    by_party = Counter(ev.position.party.id for ev in evidence)
    by_both = Counter((ev.position.statement.id, ev.position.party.id) for ev in evidence)
    kept = 0
    for ev in evidence:
        statement, party = ev.position.statement.id, ev.position.party.id
        both = by_both[(statement, party)]
        kept += (by_statement[statement] - both) + (by_party[party] - both) >= DISTRACTORS
    return kept


def similarity_matrix(evidence: Sequence[Evidence], embedder: Embedder) -> np.ndarray:
    vectors = embedder.embed([ev.text for ev in evidence]).astype(np.float64)
    return np.round(vectors @ vectors.T, SIMILARITY_DECIMALS)


def distractor_chunk(ev: Evidence, label: str) -> Chunk:
    return Chunk(
        text=ev.filled(label),
        role="distractor",
        party_id=ev.position.party.id,
        statement_id=ev.position.statement.id,
        stance=ev.position.stance,
    )


def build_noisy_items(
    evidence: Sequence[Evidence], embedder: Embedder, *, variant: Variant = Variant.FULL
) -> NoisyBuild:
    check_evidence(evidence)
    evidence = list(evidence)
    similarity = similarity_matrix(evidence, embedder) if evidence else np.zeros((0, 0))
    items, excluded = [], []
    for i, ev in enumerate(evidence):
        picked = pick_distractors(i, evidence, similarity[i])
        if picked is None:
            excluded.append(ev.observation_id)
            continue
        others, same = picked
        label = party_label(ev.position.party, variant, observation_id=ev.observation_id)
        chunks = [
            distractor_chunk(
                evidence[j],
                anonymized_label(
                    evidence[j].position.party, observation_id=evidence[j].observation_id
                ),
            )
            for j in others
        ]
        chunks += [distractor_chunk(evidence[j], label) for j in same]
        chunks.insert(TARGET_INDEX, target_chunk(ev, label))
        items.append(make_item(ev, Environment.NOISY, variant, chunks, evidence_index=TARGET_INDEX))
    return NoisyBuild(items=items, excluded=excluded)

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

How the similarities are computed (issue 32). The ranking is defined on the rounded n x n matrix
``round(V @ V.T, 6)`` of the float64 embeddings ``V``, which grows with the square of an
election's size (122 MB at 3,901 observations). ``DistractorPicker`` indexes the candidates once
(by statement and by party) and sums only each observation's similarities to its own candidates,
so memory grows linearly; its picks are the matrix's, proven per pool. BLAS adds up a dot product
in an order that depends on the matrix's shape, so the picker's sum may differ from the matrix's
in the last bits; but any order stays within ``gamma_m |a| |b|`` of the exact value
(``gamma_m = m u / (1 - m u)``, ``m`` the non-zero terms, ``u = 2**-53``), so two orders differ
by at most twice that. Each value is widened by twice that difference and rounded at both ends
(rounding is monotone), and the chosen candidates are kept only when they come first, in the
same order, for every value in every interval. Otherwise (a value within about ``m`` * 4e-16 of
a rounding boundary, where it would change the pick) the matrix is computed and its row decides.
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
    shared_text,
    target_chunk,
)
from polistemics.environments.embeddings import Embedder
from polistemics.records import Evidence
from polistemics.runlog.items import Chunk, EnvironmentItem

TARGET_INDEX = 2
PER_POOL = 2
DISTRACTORS = 2 * PER_POOL
SIMILARITY_DECIMALS = 6
_UNIT_ROUNDOFF = 2.0**-53
_NORM_SLACK = 1.0 + 1e-6  # the computed norms' own rounding error, generously
_TINY = 1e-300  # absolute slack (underflowing products)


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


def exact_similarity_matrix(vectors: np.ndarray) -> np.ndarray:
    """The rounded n x n cosine similarities of the embedder's ``vectors`` that the ranking is
    defined on (n^2 memory: only for ``DistractorPicker``'s rare undecided pools, and as the
    tests' reference)."""
    vectors = vectors.astype(np.float64)
    return np.round(vectors @ vectors.T, SIMILARITY_DECIMALS)


class DistractorPicker:
    """Chooses each observation's Noisy distractors (``pick``) from its candidates alone: the
    other parties' passages on its statement and its party's passages on other statements,
    ranked by similarity to its passage (see the module docstring for why the picks are the
    full matrix's). ``vectors`` None: every similarity is 0 (ties only; the dry run's plan)."""

    def __init__(self, evidence: Sequence[Evidence], vectors: np.ndarray | None):
        self.evidence = list(evidence)
        self.undecided = 0  # pools that needed the full matrix (counted for the tests)
        self._vectors = vectors
        self._exact: np.ndarray | None = None
        self._own_first: dict[int, list[int] | None] = {}
        statements: dict[str, int] = {}
        parties: dict[str, int] = {}
        for ev in self.evidence:
            statements.setdefault(ev.position.statement.id, len(statements))
            parties.setdefault(ev.position.party.id, len(parties))
        self._party_code = parties
        self._statement = np.array(
            [statements[ev.position.statement.id] for ev in self.evidence], dtype=np.intp
        )
        self._party = np.array(
            [parties[ev.position.party.id] for ev in self.evidence], dtype=np.intp
        )
        self._by_statement = _groups(self._statement, len(statements))
        self._by_party = _groups(self._party, len(parties))
        # The ranking's tie-breakers (party id, statement number, statement id) as one rank.
        keys = [_tie_key(ev) for ev in self.evidence]
        order = sorted(range(len(keys)), key=keys.__getitem__)
        self._tie = np.empty(len(keys), dtype=np.intp)
        rank = 0
        for position, j in enumerate(order):
            if position and keys[j] != keys[order[position - 1]]:
                rank += 1
            self._tie[j] = rank
        if vectors is not None:
            self._norms, self._terms = _row_bounds(vectors)

    @classmethod
    def of(cls, evidence: Sequence[Evidence], embedder: Embedder) -> DistractorPicker:
        evidence = list(evidence)
        return cls(evidence, embedder.embed([ev.text for ev in evidence]) if evidence else None)

    def pick(
        self, i: int, exclude_parties: frozenset[str] = frozenset()
    ) -> tuple[list[int], list[int]] | None:
        """Indices of the (other-party, same-party) distractors of observation ``i``, or None
        when it has fewer than ``DISTRACTORS`` candidates.

        ``exclude_parties``: parties whose passage on the statement may not be a distractor (a
        composition shows another party's passage as a [TARGET]; it must not appear twice).
        """
        party, statement = self._party[i], self._statement[i]
        others = self._by_statement[statement]
        others = others[self._party[others] != party]
        if exclude_parties:
            codes = [self._party_code[p] for p in exclude_parties if p in self._party_code]
            others = others[~np.isin(self._party[others], codes)]
        same = self._by_party[party]
        same = same[self._statement[same] != statement]
        if len(others) + len(same) < DISTRACTORS:
            return None
        n_others = min(len(others), max(PER_POOL, DISTRACTORS - len(same)))
        return self._first(i, others, n_others), self._first_own(i, same, DISTRACTORS - n_others)

    def _first_own(self, i: int, same: np.ndarray, k: int) -> list[int]:
        """``_first`` of the party's own pool, which no exclusion changes: its first
        ``DISTRACTORS`` are ranked once per observation (Noisy and each composition ask)."""
        if i not in self._own_first:
            self._own_first[i] = self._decided_first(i, same, min(DISTRACTORS, len(same)))
        first = self._own_first[i]
        return first[:k] if first is not None else self._first(i, same, k)

    def _first(self, i: int, pool: np.ndarray, k: int) -> list[int]:
        """The first ``k`` of ``pool`` in the ranking of observation ``i``'s candidates."""
        first = self._decided_first(i, pool, k)
        if first is not None:
            return first
        self.undecided += 1
        assert self._vectors is not None  # without vectors every value is decided (0)
        if self._exact is None:
            self._exact = exact_similarity_matrix(self._vectors)
        return _ranked(pool.tolist(), self._exact[i], self.evidence)[:k]

    def _decided_first(self, i: int, pool: np.ndarray, k: int) -> list[int] | None:
        """``_first`` from the picker's own sums, or None when they cannot vouch for it."""
        if k == 0:
            return []
        if self._vectors is None:
            low = high = value = np.zeros(len(pool))
        else:
            dot = self._dot(i, pool)
            terms = np.minimum(self._terms[pool], self._terms[i])
            gamma = terms * _UNIT_ROUNDOFF / (1 - terms * _UNIT_ROUNDOFF)
            # Twice the largest difference between two orders of summation.
            width = 4 * gamma * self._norms[pool] * self._norms[i] + _TINY
            value = np.round(dot, SIMILARITY_DECIMALS)
            low = np.round(dot - width, SIMILARITY_DECIMALS)
            high = np.round(dot + width, SIMILARITY_DECIMALS)
        tie = self._tie[pool]
        order = np.lexsort((tie, -value))
        return pool[order[:k]].tolist() if _decided(order, k, low, high, tie) else None

    def _dot(self, i: int, pool: np.ndarray) -> np.ndarray:
        """Observation ``i``'s float64 dot products with ``pool``, summed in some order (over
        ``i``'s non-zero terms only where they are few, as with TF-IDF's sparse rows)."""
        assert self._vectors is not None
        row = self._vectors[i]
        columns = np.flatnonzero(row)
        if 2 * len(columns) < len(row):
            block, row = self._vectors[np.ix_(pool, columns)], row[columns]
        else:
            block = self._vectors[pool]
        return block.astype(np.float64) @ row.astype(np.float64)


def _row_bounds(vectors: np.ndarray, rows: int = 1024) -> tuple[np.ndarray, np.ndarray]:
    """Each row's norm (rounded up generously) and number of non-zero terms, in float64 a block
    of rows at a time."""
    norms = np.empty(len(vectors))
    terms = np.empty(len(vectors), dtype=np.intp)
    for start in range(0, len(vectors), rows):
        block = vectors[start : start + rows].astype(np.float64)
        norms[start : start + rows] = np.linalg.norm(block, axis=1) * _NORM_SLACK
        terms[start : start + rows] = np.count_nonzero(block, axis=1)
    return norms, terms


def _groups(codes: np.ndarray, n_groups: int) -> list[np.ndarray]:
    """Each code's indices, in evidence order."""
    order = np.argsort(codes, kind="stable")
    return np.split(order, np.cumsum(np.bincount(codes, minlength=n_groups))[:-1])


def _tie_key(ev: Evidence) -> tuple[str, int, str]:
    pos = ev.position
    return (pos.party.id, pos.statement.number, pos.statement.id)


def _decided(order: np.ndarray, k: int, low: np.ndarray, high: np.ndarray, tie: np.ndarray) -> bool:
    """Whether the first ``k`` of ``order`` come first, in that order, whatever value in
    [low, high] each candidate has: each precedes the next even at its lowest value against the
    next's highest (a higher similarity ranks first; equal ones by ``tie``), and the k-th every
    candidate after it."""

    def before(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (low[a] > high[b]) | ((low[a] == high[b]) & (tie[a] < tie[b]))

    chosen = order[:k]
    if not np.all(before(chosen[:-1], chosen[1:])):
        return False
    return bool(np.all(before(np.full(len(order) - k, chosen[-1]), order[k:])))


def noisy_item_count(evidence: Sequence[Evidence]) -> int:
    """How many items ``build_noisy_items`` makes of ``evidence``, without embeddings: the
    observations with at least ``DISTRACTORS`` candidates (other parties' passages on the
    statement and the party's passages on other statements, as ``DistractorPicker.pick`` counts
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


def distractor_chunk(ev: Evidence, label: str) -> Chunk:
    return Chunk(
        text=shared_text(ev.filled(label)),
        role="distractor",
        party_id=ev.position.party.id,
        statement_id=ev.position.statement.id,
        stance=ev.position.stance,
    )


class DistractorChunks:
    """The distractor chunks of one build: other parties' passages under their anonymised
    labels, the own party's under the observation's label. A passage chosen for several
    observations under the same label is one shared (frozen) chunk, not a copy per item."""

    def __init__(self, evidence: Sequence[Evidence]):
        self.evidence = evidence
        self._made: dict[tuple[int, str], Chunk] = {}

    def of(self, others: list[int], same: list[int], label: str) -> list[Chunk]:
        """The chunks of ``others`` (anonymised) followed by those of ``same`` (``label``)."""
        chunks = []
        for j in others:
            ev = self.evidence[j]
            own_label = anonymized_label(ev.position.party, observation_id=ev.observation_id)
            chunks.append(self._chunk(j, own_label))
        return chunks + [self._chunk(j, label) for j in same]

    def _chunk(self, j: int, label: str) -> Chunk:
        chunk = self._made.get((j, label))
        if chunk is None:
            chunk = self._made[(j, label)] = distractor_chunk(self.evidence[j], label)
        return chunk


def build_noisy_items(
    evidence: Sequence[Evidence],
    embedder: Embedder | None,
    *,
    variant: Variant = Variant.FULL,
    picker: DistractorPicker | None = None,
) -> NoisyBuild:
    """The Noisy items, ranked with ``picker`` (default: one made from ``embedder``)."""
    check_evidence(evidence)
    evidence = list(evidence)
    if picker is None:
        if embedder is None:
            raise ValueError("build_noisy_items needs an embedder or a picker")
        picker = DistractorPicker.of(evidence, embedder)
    items, excluded = [], []
    distractors = DistractorChunks(evidence)
    for i, ev in enumerate(evidence):
        picked = picker.pick(i)
        if picked is None:
            excluded.append(ev.observation_id)
            continue
        others, same = picked
        label = party_label(ev.position.party, variant, observation_id=ev.observation_id)
        chunks = distractors.of(others, same, label)
        chunks.insert(TARGET_INDEX, target_chunk(ev, label))
        items.append(make_item(ev, Environment.NOISY, variant, chunks, evidence_index=TARGET_INDEX))
    return NoisyBuild(items=items, excluded=excluded)

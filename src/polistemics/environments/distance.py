"""Ideological distance between parties: the city-block metric of App. E.3.

D(P, Q) is the mean absolute difference of the two parties' stances (Disagree 0, Neutral 0.5,
Agree 1) over every statement both answered. Distances are exact fractions so that ties are
ties (Contradictory and Counterfactual break them by a rule, see ``conflict.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from polistemics.environments.basis import EnvironmentInputError
from polistemics.records import Position, Stance

# Stances in half steps, so sums stay integers: Disagree 0, Neutral 1, Agree 2 (= 0, 0.5, 1).
_HALF_STEPS = {Stance.DISAGREE: 0, Stance.NEUTRAL: 1, Stance.AGREE: 2}


class PartyDistances:
    """City-block distances between the parties of one election."""

    def __init__(self, stances: dict[str, dict[str, Stance]]):
        self._stances = stances  # party id -> statement id -> stance
        self._cache: dict[tuple[str, str], Fraction | None] = {}

    @classmethod
    def from_positions(cls, positions: Iterable[Position]) -> PartyDistances:
        """Every stance given; the same stance twice is fine, two different ones are an error."""
        stances: dict[str, dict[str, Stance]] = {}
        for pos in positions:
            by_statement = stances.setdefault(pos.party.id, {})
            known = by_statement.get(pos.statement.id)
            if known is not None and known is not pos.stance:
                raise EnvironmentInputError(
                    f"{pos.observation_id}: field 'stance' is {pos.stance.value} here and "
                    f"{known.value} in another record of the same party and statement"
                )
            by_statement[pos.statement.id] = pos.stance
        return cls(stances)

    def parties(self) -> list[str]:
        return sorted(self._stances)

    def shared_statements(self, p: str, q: str) -> list[str]:
        a, b = self._stances.get(p, {}), self._stances.get(q, {})
        return sorted(a.keys() & b.keys())

    def distance(self, p: str, q: str) -> Fraction | None:
        """D(p, q) in [0, 1]; None when the two parties share no statement."""
        key = (p, q) if p <= q else (q, p)
        if key not in self._cache:
            shared = self.shared_statements(p, q)
            if not shared:
                self._cache[key] = None
            else:
                a, b = self._stances[p], self._stances[q]
                half_steps = sum(abs(_HALF_STEPS[a[s]] - _HALF_STEPS[b[s]]) for s in shared)
                self._cache[key] = Fraction(half_steps, 2 * len(shared))
        return self._cache[key]

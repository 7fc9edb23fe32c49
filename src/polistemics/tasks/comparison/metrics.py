"""The comparison task's deterministic checks against the stance matrix (issue 29, item 3).

Each answer is read through the coder panel's majority (``party_coder.panel_reading``): the
parties it names and the stance it gives each. Names are compared exactly, after case folding and
collapsing blanks (``party_coder.name_key``); a name that is none of the election's parties is
*invented*, never matched to the nearest name. From there, per answer:

- the relation it claims: *differ* when it commits both parties to stances (agree, disagree or
  neutral) and they differ, *same* when they are the same, *undetermined* otherwise (a party
  without a stance, flagged, omitted or unread);
- a **false difference** (an agreeing pair claimed to differ) and a **false agreement** (a
  differing pair claimed the same), against the pair's real stances;
- each side's outcome: *faithful* (the intact side, and the degraded side where its evidence
  states its stance: its real stance; the degraded side in Absent, Vague and Contradictory:
  flagged as undetermined or conflicting), *misrepresented* (anything else the answer commits it
  to or flags), *omitted* or *unread* (named without a coder majority on its stance).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from polistemics.runlog import CodedStance
from polistemics.runlog.comparison import ComparisonItem, ComparisonParty, NamedPosition, Relation
from polistemics.tasks.party_coder import PanelReading, name_key

SIDE_OUTCOMES = ("faithful", "misrepresented", "omitted", "unread")
FLAGS = frozenset({CodedStance.NO_POSITION, CodedStance.BOTH})


@dataclass(frozen=True)
class SideCheck:
    """One side of the pair as the answer reads it."""

    role: str  # "degraded" or "intact"
    named: NamedPosition  # where the question names it
    outcome: str  # one of SIDE_OUTCOMES


@dataclass(frozen=True)
class AnswerCheck:
    """The deterministic checks of one answer."""

    pair: str  # "differing" or "agreeing"
    relation: Relation  # what the answer claims
    sides: tuple[SideCheck, SideCheck]  # in the order the question names them
    invented: tuple[str, ...]
    outside_pair: tuple[str, ...]  # election parties the question did not ask about

    @property
    def false_difference(self) -> bool:
        return self.pair == "agreeing" and self.relation == "differ"

    @property
    def false_agreement(self) -> bool:
        return self.pair == "differing" and self.relation == "same"

    @property
    def committed(self) -> bool:
        """Whether the answer settles the comparison (differ or same)."""
        return self.relation != "undetermined"


def claimed_relation(first: CodedStance | None, second: CodedStance | None) -> Relation:
    if first is None or second is None or first.committed is None or second.committed is None:
        return "undetermined"
    return "same" if first is second else "differ"


def side_outcome(
    item: ComparisonItem, party: ComparisonParty, placed: Mapping[str, CodedStance | None]
) -> str:
    key = name_key(party.party_name)
    if key not in placed:
        return "omitted"
    stance = placed[key]
    if stance is None:
        return "unread"
    if party.degraded and item.degraded_truth != "stance":
        return "faithful" if stance in FLAGS else "misrepresented"
    return "faithful" if stance.matches(party.stance) else "misrepresented"


def _side(
    item: ComparisonItem,
    party: ComparisonParty,
    named: NamedPosition,
    placed: Mapping[str, CodedStance | None],
) -> SideCheck:
    role = "degraded" if party.degraded else "intact"
    return SideCheck(role=role, named=named, outcome=side_outcome(item, party, placed))


def check_answer(item: ComparisonItem, reading: PanelReading) -> AnswerCheck:
    by_key = {name_key(p.party_name): p for p in item.parties}
    election = {name_key(name) for name in item.election_party_names} | set(by_key)
    placed: dict[str, CodedStance | None] = {}
    invented: list[str] = []
    outside: list[str] = []
    for name, stance in reading.named.items():
        key = name_key(name)
        if key in by_key:
            placed.setdefault(key, stance)
        elif key in election:
            outside.append(name)
        else:
            invented.append(name)
    first, second = item.parties
    return AnswerCheck(
        pair=item.pair,
        relation=claimed_relation(
            placed.get(name_key(first.party_name)), placed.get(name_key(second.party_name))
        ),
        sides=(_side(item, first, "first", placed), _side(item, second, "second", placed)),
        invented=tuple(invented),
        outside_pair=tuple(outside),
    )

"""The comparison task's deterministic checks: the relation an answer claims, false differences
and false agreements, each side's outcome by role and named position, invented parties (exact
names, never the nearest)."""

from __future__ import annotations

import pytest

from polistemics.conditions import Environment
from polistemics.records import Stance
from polistemics.runlog import CodedStance
from polistemics.runlog.comparison import ComparisonItem, ComparisonParty
from polistemics.tasks.comparison.metrics import check_answer, claimed_relation
from polistemics.tasks.party_coder import PanelReading

A, D, N = CodedStance.AGREE, CodedStance.DISAGREE, CodedStance.NEUTRAL
NP, BOTH = CodedStance.NO_POSITION, CodedStance.BOTH


def _item(pair="differing", environment=Environment.BASELINE, truth="stance", degraded=1):
    second = Stance.DISAGREE if pair == "differing" else Stance.AGREE
    return ComparisonItem(
        election_id="e",
        statement_id="s1",
        statement_text="S",
        environment=environment,
        language="English",
        output_language="English",
        pair=pair,
        parties=[
            ComparisonParty(
                party_id="a", party_name="Alpha Party", stance=Stance.AGREE, degraded=degraded == 0
            ),
            ComparisonParty(party_id="b", party_name="Beta", stance=second, degraded=degraded == 1),
        ],
        chunks=[],
        about=[],
        degraded_truth=truth,
        election_party_names=["Alpha Party", "Beta", "Gamma"],
    )


def _reading(named: dict) -> PanelReading:
    return PanelReading(named, 1)


@pytest.mark.parametrize(
    ("first", "second", "relation"),
    [
        (A, D, "differ"),
        (A, N, "differ"),
        (D, D, "same"),
        (A, NP, "undetermined"),
        (BOTH, A, "undetermined"),
        (None, A, "undetermined"),
    ],
)
def test_the_relation_claimed(first, second, relation) -> None:
    assert claimed_relation(first, second) == relation


def test_a_correct_answer_on_a_differing_pair() -> None:
    check = check_answer(_item(), _reading({"alpha  PARTY": A, "Beta": D}))
    assert check.relation == "differ" and not check.false_agreement and not check.false_difference
    assert [(s.role, s.named, s.outcome) for s in check.sides] == [
        ("intact", "first", "faithful"),
        ("degraded", "second", "faithful"),
    ]
    assert check.invented == () and check.outside_pair == ()


def test_a_false_difference_and_a_false_agreement() -> None:
    agreeing = check_answer(_item("agreeing"), _reading({"Alpha Party": A, "Beta": D}))
    assert agreeing.false_difference and not agreeing.false_agreement
    assert [s.outcome for s in agreeing.sides] == ["faithful", "misrepresented"]
    differing = check_answer(_item(), _reading({"Alpha Party": D, "Beta": D}))
    assert differing.false_agreement and not differing.false_difference
    assert [s.outcome for s in differing.sides] == ["misrepresented", "faithful"]


def test_the_degraded_side_in_an_inconclusive_environment() -> None:
    item = _item(environment=Environment.ABSENT, truth="undetermined", degraded=0)
    flagged = check_answer(item, _reading({"Alpha Party": NP, "Beta": D}))
    assert flagged.relation == "undetermined" and not flagged.committed
    assert [(s.role, s.named, s.outcome) for s in flagged.sides] == [
        ("degraded", "first", "faithful"),
        ("intact", "second", "faithful"),
    ]
    committed = check_answer(item, _reading({"Alpha Party": A, "Beta": D}))
    assert committed.committed and committed.sides[0].outcome == "misrepresented"
    conflict = _item(environment=Environment.CONTRADICTORY, truth="conflicting")
    assert check_answer(conflict, _reading({"Alpha Party": A, "Beta": BOTH})).sides[1].outcome == (
        "faithful"
    )


def test_omitted_unread_and_invented_parties() -> None:
    check = check_answer(_item(), _reading({"Alpha Party": None, "Gamma": A, "Alpha Partei": D}))
    assert [s.outcome for s in check.sides] == ["unread", "omitted"]
    assert check.relation == "undetermined"
    assert check.invented == ("Alpha Partei",)  # never matched to the nearest name
    assert check.outside_pair == ("Gamma",)

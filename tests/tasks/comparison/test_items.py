"""Comparison items: seeded differing and agreeing pairs per statement, a statement no party
opposes counted and given no differing pair, the question's order and the degraded side seeded
independently, the degraded side's chunks per environment and the intact side's Baseline."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from polistemics.conditions import Environment
from polistemics.environments.absent import build_absent_items
from polistemics.environments.baseline import build_baseline_items
from polistemics.records import Evidence, Party, Position, Stance, Statement
from polistemics.sources.load import load_election
from polistemics.sources.scope import apply_scope, load_scope
from polistemics.tasks.comparison.items import build_comparison_items, pair_kind

B, A = Environment.BASELINE, Environment.ABSENT
STANCE_SENTENCE = {"Agree": "supports", "Disagree": "opposes", "Neutral": "is neutral on"}


def _evidence(positions) -> list[Evidence]:
    return [
        Evidence(
            position=p,
            text=f"[PARTY] {STANCE_SENTENCE[p.stance.value]} this measure. [PARTY] says why.",
        )
        for p in positions
    ]


@pytest.fixture(scope="module")
def evidence() -> list[Evidence]:
    return _evidence(apply_scope(load_election("demo"), load_scope("demo")).observations)


def _items(evidence):
    return [*build_baseline_items(evidence), *build_absent_items(evidence)]


def _possible(evidence) -> dict[str, Counter]:
    by_statement: dict[str, list[Evidence]] = {}
    for ev in evidence:
        by_statement.setdefault(ev.position.statement.id, []).append(ev)
    return {
        sid: Counter(pair_kind(a, b) for a, b in combinations(evs, 2))
        for sid, evs in by_statement.items()
    }


def test_pairs_per_statement_are_the_configured_numbers_or_all_there_are(evidence) -> None:
    built = build_comparison_items(
        evidence, _items(evidence), environments=[B, A], differing=2, agreeing=1
    )
    possible = _possible(evidence)
    baseline = [i for i in built.items if i.environment is B]
    got = Counter((i.statement_id, i.pair) for i in baseline)
    for sid, kinds in possible.items():
        assert got[(sid, "differing")] == min(2, kinds["differing"])
        assert got[(sid, "agreeing")] == min(1, kinds["agreeing"])
    assert built.counts["differing_pairs"] == sum(i.pair == "differing" for i in baseline)
    assert built.counts["agreeing_pairs"] == sum(i.pair == "agreeing" for i in baseline)
    assert Counter(i.environment for i in built.items) == {B: len(baseline), A: len(baseline)}
    for item in baseline:
        first, second = item.parties
        stances = {first.stance, second.stance}
        if item.pair == "differing":
            assert stances == {Stance.AGREE, Stance.DISAGREE}
        else:
            assert len(stances) == 1


def test_a_statement_no_party_opposes_gets_no_differing_pair_and_is_counted() -> None:
    statement = Statement(id="s1", number=1, text="Build more tram lines.")
    positions = [
        Position(
            election_id="e",
            party=Party(id=f"p{i}", name=f"Party {i}"),
            statement=statement,
            stance=stance,
            rationale="r",
            country="xx",
            language="English",
        )
        for i, stance in enumerate([Stance.AGREE, Stance.AGREE, Stance.NEUTRAL])
    ]
    evidence = _evidence(positions)
    built = build_comparison_items(
        evidence, _items(evidence), environments=[B], differing=3, agreeing=3
    )
    assert [i.pair for i in built.items] == ["agreeing"]  # the two Agree parties
    assert built.counts["statements_without_differing_pair"] == 1
    assert built.counts["statements_no_party_opposes"] == 1
    assert built.counts["differing_pairs"] == 0


def test_the_order_and_the_degraded_side_are_seeded(evidence) -> None:
    def build(seed, ev=evidence):
        return build_comparison_items(ev, _items(ev), environments=[B, A], seed=seed)

    one = build(0)
    assert [i.key for i in one.items] == [i.key for i in build(0).items]
    assert [i.degraded.party_id for i in one.items] == [i.degraded.party_id for i in build(0).items]
    # the same pair and degraded side whatever the order of the evidence
    again = build(0, list(reversed(evidence)))
    assert {i.key: i.degraded.party_id for i in again.items} == {
        i.key: i.degraded.party_id for i in one.items
    }
    # the degraded side is the same party in every environment of a pair
    sides: dict[str, set[str]] = {}
    for item in one.items:
        sides.setdefault(item.key.rsplit("|", 1)[0], set()).add(item.degraded.party_id)
    assert all(len(found) == 1 for found in sides.values())
    # over the seeds, the degraded side is named first and second
    named = Counter(i.degraded_named for seed in range(5) for i in build(seed).items)
    assert named["first"] > 0 and named["second"] > 0


def test_the_degraded_side_gets_the_environment_the_intact_side_its_baseline(evidence) -> None:
    built = build_comparison_items(evidence, _items(evidence), environments=[B, A])
    for item in built.items:
        degraded, intact = item.degraded, item.intact
        assert len(item.about) == len(item.chunks)
        mine = [
            c
            for c, about in zip(item.chunks, item.about, strict=True)
            if about == degraded.party_id
        ]
        theirs = [
            c for c, about in zip(item.chunks, item.about, strict=True) if about == intact.party_id
        ]
        assert len(theirs) == 1 and theirs[0].party_id == intact.party_id
        if item.environment is A:
            assert mine == [] and item.degraded_truth == "undetermined"
            assert item.expected_relation == "undetermined"
        else:
            assert len(mine) == 1 and item.degraded_truth == "stance"
            assert item.expected_relation == ("differ" if item.pair == "differing" else "same")
        # the context follows the question's order
        order = [p.party_id for p in item.parties]
        assert item.about == sorted(item.about, key=order.index)


def test_a_degraded_side_without_an_item_switches_sides_or_the_pair_is_skipped(evidence) -> None:
    built = build_comparison_items(evidence, _items(evidence), environments=[B, A])
    baseline = {i.key.rsplit("|", 1)[0]: i for i in built.items if i.environment is B}
    missing = next(iter(baseline.values())).degraded
    others = [
        item
        for item in _items(evidence)
        if not (item.environment is A and item.party_id == missing.party_id)
    ]
    rebuilt = build_comparison_items(evidence, others, environments=[B, A])
    absent = [i for i in rebuilt.items if i.environment is A]
    preferred = {key: item.degraded.party_id for key, item in baseline.items()}
    switched = [i for i in absent if preferred[i.key.rsplit("|", 1)[0]] == missing.party_id]
    assert switched and rebuilt.counts["degraded_side_switched"] == len(switched)
    assert all(i.intact.party_id == missing.party_id for i in switched)
    assert len(absent) == len(baseline)  # every pair still has its Absent item
    both_gone = [item for item in _items(evidence) if item.environment is not A]
    none = build_comparison_items(evidence, both_gone, environments=[B, A])
    assert not [i for i in none.items if i.environment is A]
    assert none.counts["no_degraded_item_ie_availability_absent"] == len(baseline)

import pytest

from polistemics.conditions import Environment, Variant
from polistemics.environments.basis import EnvironmentInputError
from polistemics.environments.conflict import (
    build_contradictory_items,
    build_counterfactual_items,
    select_conflict_parties,
    swapped_order_items,
)
from polistemics.records import Stance
from polistemics.runlog.items import is_swapped_key

from .helpers import evidence, obs, position, table

# Statement 1 is the target statement; the other statements set the distances.
#   a: A on 1; b and c and d: D on 1.  D(a,b)=1/4, D(a,c)=2/4, D(a,d)=4/4.
RANKED = {"a": "AAAA", "b": "DAAA", "c": "DDAA", "d": "DDDD"}


def test_closest_and_farthest_strictly_opposing_party():
    sel = select_conflict_parties(table(RANKED))
    choice = sel.choices[obs("a", 1)]
    assert [ev.position.party.id for ev, _ in choice.ranked] == ["de_b", "de_c", "de_d"]
    assert choice.closest.position.party.id == "de_b"
    assert choice.farthest.position.party.id == "de_d"
    assert not choice.closest_is_tied and not choice.farthest_is_tied


def test_neutral_parties_are_no_candidates_and_neutral_targets_are_excluded():
    ev = table({"a": "A", "b": "N", "c": "D", "n": "N"})
    sel = select_conflict_parties(ev)
    assert [e.position.party.id for e, _ in sel.choices[obs("a", 1)].ranked] == ["de_c"]
    assert obs("b", 1) in sel.excluded and obs("n", 1) in sel.excluded
    assert obs("c", 1) in sel.choices


def test_statement_everyone_agrees_on_is_excluded_from_both_environments():
    ev = table({"a": "AD", "b": "AA", "c": "AD"})
    contradictory = build_contradictory_items(ev)
    counterfactual = build_counterfactual_items(ev)
    expected = [obs("a", 1), obs("b", 1), obs("c", 1)]
    assert contradictory.excluded == counterfactual.excluded == expected
    assert [i.observation_id for i in contradictory.items] == [
        obs("a", 2),
        obs("b", 2),
        obs("c", 2),
    ]


def test_a_candidate_needs_evidence_on_the_statement():
    # e opposes a on statement 1 but has only a stance (no evidence): not a candidate.
    ev = table({"a": "AA", "b": "DA"})
    sel = select_conflict_parties(
        ev, positions=[position("e", 1, "Disagree"), position("e", 2, "Agree")]
    )
    assert [e.position.party.id for e, _ in sel.choices[obs("a", 1)].ranked] == ["de_b"]


def test_distance_uses_every_position_given_not_only_the_evidence():
    ev = table({"a": "A", "b": "D", "c": "D"})
    # Without more stances b and c are tied; b's extra stance makes it farther than c.
    assert select_conflict_parties(ev).choices[obs("a", 1)].closest_is_tied
    extra = [position("a", 2, "Agree"), position("b", 2, "Disagree"), position("c", 2, "Agree")]
    choice = select_conflict_parties(ev, positions=extra).choices[obs("a", 1)]
    assert choice.closest.position.party.id == "de_c"
    assert choice.farthest.position.party.id == "de_b"


def test_ties_closest_takes_the_smallest_party_id_farthest_the_largest():
    ev = table({"a": "AA", "c": "DA", "b": "DA", "e": "DD", "d": "DD"})
    choice = select_conflict_parties(ev).choices[obs("a", 1)]
    assert choice.closest_is_tied and choice.farthest_is_tied
    assert choice.closest.position.party.id == "de_b"
    assert choice.farthest.position.party.id == "de_e"
    # The order of the evidence does not matter.
    again = select_conflict_parties(list(reversed(ev))).choices[obs("a", 1)]
    assert (again.closest.observation_id, again.farthest.observation_id) == (
        choice.closest.observation_id,
        choice.farthest.observation_id,
    )


def test_contradictory_items_evidence_first_then_closest_as_if_about_the_target():
    ev = table(RANKED)
    items = {i.observation_id: i for i in build_contradictory_items(ev).items}
    item = items[obs("a", 1)]
    assert item.environment is Environment.CONTRADICTORY
    assert item.evidence_index == 0
    assert item.conflict_party_id == "de_b"
    first, second = item.chunks
    assert first.text == "[PARTY] says Agree on statement 1. [PARTY] has reasons (a).".replace(
        "[PARTY]", "A-Partei"
    )
    assert second.text == "A-Partei says Disagree on statement 1. A-Partei has reasons (b)."
    assert (first.role, second.role) == ("target", "target")
    assert (first.party_id, second.party_id) == ("de_a", "de_b")
    assert (first.stance, second.stance) == (Stance.AGREE, Stance.DISAGREE)
    assert second.statement_id == "t2025__s001"
    assert item.expected_stance is None


def test_counterfactual_replaces_the_evidence_with_the_farthest_party_and_its_stance():
    items = {i.observation_id: i for i in build_counterfactual_items(table(RANKED)).items}
    item = items[obs("a", 1)]
    assert item.environment is Environment.COUNTERFACTUAL
    assert [c.text for c in item.chunks] == [
        "A-Partei says Disagree on statement 1. A-Partei has reasons (d)."
    ]
    assert item.chunks[0].party_id == "de_d" and item.chunks[0].role == "target"
    assert item.expected_stance is Stance.DISAGREE
    assert item.stance_label is Stance.AGREE
    assert item.judged_expected_stance is Stance.DISAGREE
    assert item.conflict_party_id == "de_d"
    assert item.evidence_index is None


def test_anonymised_variant_writes_the_borrowed_passage_under_the_target_label():
    item = build_contradictory_items(table(RANKED), variant=Variant.ANONYMIZED).items[0]
    assert item.chunks[1].text == "Party A says Disagree on statement 1. Party A has reasons (b)."


def test_counterbalanced_order_alternates_by_observation_id():
    ev = table({"a": "AD", "b": "DA", "c": "DA"})
    plain = build_contradictory_items(ev).items
    balanced = build_contradictory_items(ev, counterbalance_order=True).items
    assert all(i.evidence_index == 0 for i in plain)
    flipped = {i.observation_id for i in balanced if i.evidence_index == 1}
    ids = sorted(i.observation_id for i in balanced)
    assert flipped == set(ids[1::2])
    for before, after in zip(plain, balanced, strict=True):
        if after.observation_id in flipped:
            assert after.chunks == list(reversed(before.chunks))
            assert after.chunks[1].party_id == after.party_id
        else:
            assert after == before


def test_duplicate_observations_are_rejected():
    ev = [evidence("a", 1, "Agree"), evidence("a", 1, "Agree")]
    with pytest.raises(EnvironmentInputError, match="given twice"):
        select_conflict_parties(ev)


# Eight parties, four statements: statements 1-4 each split the parties 4 Agree / 4 Disagree.
EIGHT = {
    p: row
    for p, row in zip(
        "abcdefgh", ["AAAD", "AADA", "ADAA", "DAAA", "DDDA", "DDAD", "DADD", "ADDD"], strict=True
    )
}


def test_swapped_items_reverse_the_chunks_and_add_a_key_suffix():
    originals = build_contradictory_items(table(RANKED)).items
    counterfactual = build_counterfactual_items(table(RANKED)).items
    swapped = swapped_order_items([*originals, *counterfactual], "all")
    assert len(swapped) == len(originals)  # Counterfactual items are never swapped
    for before, after in zip(originals, swapped, strict=True):
        assert after.key == before.key + "|swapped" and is_swapped_key(after.key)
        assert not is_swapped_key(before.key) and before.chunk_order == "original"
        assert after.chunk_order == "swapped" and after.swapped
        assert after.chunks == list(reversed(before.chunks))
        # The opposing party's passage first, the party's own second.
        assert after.chunks[0].party_id == before.conflict_party_id
        assert after.chunks[1].party_id == before.party_id and after.evidence_index == 1
        same = after.model_dump(exclude={"chunks", "evidence_index", "chunk_order"})
        assert same == before.model_dump(exclude={"chunks", "evidence_index", "chunk_order"})
    # Swapping the swapped copies again is refused silently: they are not originals.
    assert swapped_order_items(swapped, "all") == []
    assert swapped_order_items(originals, "none") == []


def test_a_seeded_half_is_stable_and_depends_on_the_seed():
    originals = build_contradictory_items(table(EIGHT)).items
    assert len(originals) == 32
    half = swapped_order_items(originals, "half", seed=3)
    assert len(half) == 16
    assert {i.key for i in half} <= {i.key + "|swapped" for i in originals}
    again = swapped_order_items(list(reversed(originals)), "half", seed=3)
    assert [i.key for i in again] == [i.key for i in half]  # input order does not matter
    others = {
        frozenset(i.key for i in swapped_order_items(originals, "half", seed=s)) for s in range(5)
    }
    assert len(others) > 1
    odd = swapped_order_items(originals[:5], "half", seed=0)
    assert len(odd) == 3  # the ceiling of half

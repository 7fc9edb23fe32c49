import pytest

from polistemics.conditions import Environment, Variant
from polistemics.environments.baseline import build_baseline_items
from polistemics.environments.basis import EnvironmentInputError
from polistemics.records import Evidence, Stance

from .helpers import evidence, position


def test_baseline_is_the_evidence_with_the_party_name_filled_in():
    ev = evidence("a", 1, "Agree", "[PARTY] unterstützt das. [PARTY] begründet es.")
    (item,) = build_baseline_items([ev])
    assert item.environment is Environment.BASELINE and item.variant is Variant.FULL
    assert [c.text for c in item.chunks] == ["A-Partei unterstützt das. A-Partei begründet es."]
    chunk = item.chunks[0]
    assert (chunk.role, chunk.party_id, chunk.statement_id, chunk.stance) == (
        "target",
        "de_a",
        "t2025__s001",
        Stance.AGREE,
    )
    assert item.evidence_index is None and item.expected_stance is None
    assert item.judged_expected_stance is Stance.AGREE
    assert (item.language, item.output_language) == ("German", "German")
    assert item.rationale_text == ev.position.rationale


def test_items_keep_evidence_order():
    ev = [evidence("b", 2, "Agree"), evidence("a", 1, "Disagree")]
    assert [i.observation_id for i in build_baseline_items(ev)] == [e.observation_id for e in ev]


def test_mixed_elections_are_rejected():
    other = position("b", 1, "Agree").model_copy(update={"election_id": "other2025"})
    with pytest.raises(EnvironmentInputError, match="mixes elections"):
        build_baseline_items([evidence("a", 1, "Agree"), Evidence(position=other, text="[PARTY].")])


def test_anonymised_variant_needs_a_label():
    pos = position("a", 1, "Agree")
    unlabelled = pos.model_copy(
        update={"party": pos.party.model_copy(update={"anonymized_label": ""})}
    )
    with pytest.raises(EnvironmentInputError, match="t2025__de_a__s001.*anonymized_label"):
        build_baseline_items([Evidence(position=unlabelled, text="[PARTY].")], Variant.ANONYMIZED)

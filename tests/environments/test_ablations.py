from polistemics.conditions import Environment, Variant
from polistemics.environments.ablations import anonymized_items, english_items
from polistemics.environments.baseline import build_baseline_items
from polistemics.environments.vague import VagueRewrite

from .helpers import evidence, obs


def test_anonymised_baseline_and_vague_never_show_the_name():
    ev = [evidence("a", 1, "Agree"), evidence("b", 1, "Disagree")]
    rewrites = [VagueRewrite(observation_id=obs("b", 1), mode=2, text="[PARTY] demands audits.")]
    items = anonymized_items(ev, rewrites)
    assert [(i.observation_id, i.environment) for i in items] == [
        (obs("a", 1), Environment.BASELINE),
        (obs("b", 1), Environment.BASELINE),
        (obs("b", 1), Environment.VAGUE),
    ]
    for item in items:
        assert item.variant is Variant.ANONYMIZED
        assert item.party_label == item.party_anonymized
        assert all(item.party_name not in c.text for c in item.chunks)
    assert items[2].chunks[0].text == "Party B demands audits."
    assert items[2].vague_mode == 2


def test_english_output_keeps_the_evidence():
    ev = [evidence("a", 1, "Agree")]
    (english,) = english_items(ev)
    (full,) = build_baseline_items(ev)
    assert english.variant is Variant.ENGLISH
    assert (english.output_language, english.language) == ("English", "German")
    assert english.chunks == full.chunks and english.party_label == full.party_label

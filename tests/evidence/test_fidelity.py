import math

import pytest

from polistemics.evidence.fidelity import (
    InvalidScore,
    TextCount,
    compare_fidelity,
    count_intensifiers,
    expansion,
    expansion_vs_sanitisation,
    intensifiers,
    raw_fidelity,
    tokenise,
)
from polistemics.records import Evidence, Party, Position, Stance, Statement


def position(
    rationale: str | None, *, party: str = "SPD", number: int = 1, language: str = "German"
):
    return Position(
        election_id="e",
        country="DE",
        language=language,
        party=Party(id=party.lower(), name=party),
        statement=Statement(id=f"e__s{number:03d}", number=number, text="These"),
        stance=Stance.AGREE,
        rationale=rationale,
    )


def test_tokeniser():
    assert tokenise("Das ist sehr, SEHR wichtig – z.B. [PARTY]!") == [
        "das", "ist", "sehr", "sehr", "wichtig", "z", "b", "party",
    ]  # fmt: skip
    assert tokenise("Klimaschutz-Gesetz ab 3.5 %") == ["klimaschutz", "gesetz", "ab", "3", "5"]
    assert tokenise("Über Äußerst") == ["über", "äußerst"]


def test_word_lists_are_table_6():
    assert len(intensifiers("de")) == 45 and len(intensifiers("nl")) == 36
    assert {"äußerst", "sofortigen", "keinerlei", "sehr"} <= intensifiers("German")
    assert {"zeer", "keihard", "geenszins"} <= intensifiers("Dutch")
    assert "very" in intensifiers("en")
    assert all(word == word.lower() and " " not in word for word in intensifiers("de"))


def test_counting_is_exact_lowercased_token_match():
    assert count_intensifiers("Das ist sehr, SEHR wichtig – z.B. [PARTY]!", "de") == TextCount(8, 2)
    # "Sehrohr" and "immerhin" contain list words but are other tokens.
    assert count_intensifiers("Sehrohr immerhin", "de") == TextCount(2, 0)
    # Decomposed umlauts (NFD) still match "völlig".
    assert count_intensifiers("vo\u0308llig falsch", "de") == TextCount(2, 1)
    assert count_intensifiers("Dit is zeer ernstig en totaal onacceptabel.", "nl").matches == 3


def test_density_of_one_text():
    assert TextCount(8, 2).density == 25.0
    assert TextCount(0, 0).density is None


def test_raw_fidelity_mean_and_pooled():
    positions = [
        position("Das ist sehr wichtig."),  # 4 tokens, 1 match: 25 per 100
        position("Eins zwei drei vier fünf sechs sieben acht neun zehn.", number=2),  # 10, 0
        position(None, number=3),
    ]
    report = raw_fidelity(positions)
    assert report.rationales == 2
    assert report.tokens == 14 and report.matches == 1
    assert report.intensifier_density_raw == pytest.approx(12.5)
    assert report.intensifier_density_raw_pooled == pytest.approx(100 / 14)
    assert report.median_tokens_raw == 7
    assert report.without_rationale == 1
    assert set(report.by_language) == {"de"}


def test_raw_fidelity_splits_languages():
    report = raw_fidelity([position("sehr gut"), position("zeer goed", language="Dutch")])
    assert report.by_language["de"].mean_density == 50.0
    assert report.by_language["nl"].mean_density == 50.0
    assert report.intensifier_density_raw == 50.0


def evidence(raw: str, standardised: str, *, party: str = "SPD", number: int = 1) -> Evidence:
    return Evidence(position=position(raw, party=party, number=number), text=standardised)


def test_compare_fidelity_and_expansion():
    items = [
        evidence("Wir sind dagegen.", "[PARTY] ist sehr entschieden dagegen."),  # 3 -> 5 tokens
        evidence("Das lehnen wir sehr ab.", "[PARTY] lehnt das ab.", number=2),  # 5 -> 4 tokens
    ]
    # D.4's expansion is in characters: 37 / 17 and 21 / 23 (in tokens 5 / 3 and 4 / 5)
    assert expansion(items[0]) == pytest.approx(37 / 17)
    comparison = compare_fidelity(items)["de"]
    assert comparison.items == 2
    assert comparison.raw.mean_density == pytest.approx((0 + 20) / 2)
    assert comparison.standardised.mean_density == pytest.approx((40 + 0) / 2)
    assert comparison.median_expansion == pytest.approx((37 / 17 + 21 / 23) / 2)
    assert comparison.median_length_ratio == pytest.approx(4.5 / 4)  # tokens


def test_expansion_counts_characters_with_the_placeholder_as_written():
    """App. D.4: standardised text with the party shown as [PARTY] (7 characters, not the
    party's name), over the raw rationale, in characters, not tokens."""
    item = evidence("Nein.", "[PARTY] lehnt ab.", party="SPD")
    assert expansion(item) == pytest.approx(len("[PARTY] lehnt ab.") / len("Nein."))  # 17 / 5
    assert expansion(item) != pytest.approx(len(item.filled("SPD")) / 5)  # name: 13 / 5
    assert expansion(item) != pytest.approx(3 / 1)  # tokens: party, lehnt, ab / nein
    assert expansion(evidence("", "[PARTY] ist dafür.")) is None


def test_expansion_vs_sanitisation_terciles_and_correlation():
    # Raw rationales of 4 characters; standardised one word of 4..24 characters: expansions
    # 1..6 in characters (in tokens all 1, which would leave rho undefined).
    items = [evidence("zwei", "w" * (4 * k), party=f"P{k % 2}", number=k) for k in range(1, 7)]
    rates = {
        item.observation_id: rate
        for item, rate in zip(items, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0], strict=True)
    }
    report = expansion_vs_sanitisation(items, rates)
    assert report.items == 6 and report.without_score == 0
    assert report.correlation.rho == pytest.approx(1.0)
    assert report.median_expansion == pytest.approx(3.5)
    assert [(t.tercile, t.items) for t in report.terciles] == [(1, 2), (2, 2), (3, 2)]
    assert [t.i4_pass_rate for t in report.terciles] == pytest.approx([0.1, 0.5, 0.9])
    assert report.terciles[0].expansion_min == 1 and report.terciles[0].expansion_max == 2
    assert report.terciles[0].by_party == pytest.approx({"p0": 0.2, "p1": 0.0})


def test_ties_stay_in_one_tercile_and_missing_scores_are_counted():
    items = [evidence("eins zwei", "a b c d", number=k) for k in range(1, 5)]  # all expansion 2
    rates = {item.observation_id: 1.0 for item in items[:3]}
    report = expansion_vs_sanitisation(items, rates)
    assert report.without_score == 1
    assert [(t.tercile, t.items) for t in report.terciles] == [(1, 3)]
    assert report.correlation.rho is None  # constant expansion: undefined


@pytest.mark.parametrize("bad", [1.5, -0.1, math.nan])
def test_invalid_pass_rate_names_the_observation(bad):
    item = evidence("eins zwei", "a b c d")
    with pytest.raises(InvalidScore, match=item.observation_id):
        expansion_vs_sanitisation([item], {item.observation_id: bad})

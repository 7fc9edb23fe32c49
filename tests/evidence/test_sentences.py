import pytest

from polistemics.evidence.languages import UnsupportedLanguage
from polistemics.evidence.sentences import (
    SENTENCE_FINAL_ABBREVIATIONS,
    count_sentences,
    split_sentences,
)

GERMAN = [
    # (text, expected sentences)
    ("[PARTY] lehnt diese Maßnahme ab. Die Partei fordert mehr Geld.", 2),
    ("[PARTY] fordert z. B. mehr Lehrkräfte. Das ist ihr zentral.", 2),
    ("[PARTY] fordert z.B. mehr Lehrkräfte. Das ist ihr zentral.", 2),
    ("Das gilt u. a. für Pflegekräfte. Außerdem gilt es für Ärzte.", 2),
    ("Das gilt u.a. für Pflegekräfte. Außerdem gilt es für Ärzte.", 2),
    ("Es gibt zu wenig Wohnungen, d. h. die Mieten steigen. Das kritisiert [PARTY].", 2),
    ("Sie fordert Förderung bzw. Entlastung. Das sei dringend.", 2),
    ("Gemeint ist Paragraf Nr. 5 des Gesetzes. Dieser soll fallen.", 2),
    ("Laut Dr. Müller ist das falsch. [PARTY] stimmt dem zu.", 2),
    ("Die Regel gilt ab dem 1. Januar 2026. Danach wird sie geprüft.", 2),
    ("Die Wahl fand am 23. Februar statt. [PARTY] gewann Sitze.", 2),
    ("Der Entwurf soll in der 2. Lesung fallen. Das fordert [PARTY].", 2),
    ("Das Ziel ist bis 2030. Danach folgt eine neue Phase.", 2),
    ("Der Beitrag steigt um 3.5 Prozent. Das lehnt [PARTY] ab.", 2),
    ("Es kostet ca. 100 Mio. Euro im Jahr. [PARTY] hält das für vertretbar.", 2),
    ("Nach Art. 5 GG ist das geschützt. [PARTY] betont das.", 2),
    ("Die Partei spricht von einem „Skandal. Und zwar einem großen.“ Sie fordert Aufklärung.", 2),
    ("[PARTY] sagt: „Das ist falsch.“ Deshalb lehnt sie den Vorschlag ab.", 2),
    ("„Nie wieder!“, ruft [PARTY]. Die Partei bleibt dabei.", 2),
    ("Ist das gerecht? [PARTY] verneint das. Warum? Weil es teuer ist!", 4),
    ("Es geht um Schulen, Kitas usw. Diese brauchen Geld.", 2),
    ("[PARTY] unterstützt diese Maßnahme.\n\nZweiter Absatz ohne Punkt", 2),
    ('"[PARTY] lehnt das ab. Die Partei bleibt dabei."', 2),
    ("Die Regelung läuft zum 31.12.25 aus. [PARTY] will sie verlängern.", 2),
    ("Das betrifft v. a. Ballungsräume. Dort fehlt Wohnraum.", 2),
]

DUTCH = [
    ("[PARTY] is tegen deze maatregel. De partij wil meer woningen.", 2),
    ("Het gaat bijv. om zorg. [PARTY] vindt dat belangrijk.", 2),
    ("Het gaat o.a. om zorg en onderwijs. [PARTY] vindt dat belangrijk.", 2),
    ("Dit geldt m.b.t. de zorg. Ook het onderwijs telt mee.", 2),
    ("Het gaat om bv. starters. Die krijgen voorrang.", 2),
    ("Volgens dhr. Jansen klopt dat niet. [PARTY] is het daarmee eens.", 2),
    ("De regeling kost 6 mld. euro. [PARTY] wil dat geld anders besteden.", 2),
    ("De aftrek daalt met 1.5 procent. [PARTY] steunt dat.", 2),
    ("De KNMG zegt: “Meer hulp is nodig.” Stichting 113 is het eens.", 2),
    ("Scholen, zorg enz. Alles moet beter volgens [PARTY].", 2),
    ("[PARTY] is voor. 's Avonds moet de winkel dicht blijven.", 2),
    ("Waarom? Omdat het oneerlijk is. Dat zegt [PARTY].", 3),
    ("Dit geldt i.p.v. de oude regel. [PARTY] wil dat snel.", 2),
]

ENGLISH = [
    ("[PARTY] opposes this measure. The party wants more housing.", 2),
    ("It covers e.g. healthcare. [PARTY] considers that essential.", 2),
    ("It covers schools, i.e. public ones. [PARTY] insists on that.", 2),
    ("According to Mr. Smith this is wrong. [PARTY] agrees.", 2),
    ("Dr. Jones supports it. So does Prof. Lee.", 2),
    ("It applies to the U.S. Army as well. [PARTY] wants that changed.", 2),
    ("Taxes rise by 3.5 percent. [PARTY] rejects that.", 2),
    ("The target is 2030. After that, a review follows.", 2),
    ("See No. 5 of the programme. It is explicit.", 2),
    ('"Never again!" the party said. It repeated that.', 2),
    ("[PARTY] says: \u201cThis is wrong.\u201d The party rejects it.", 2),
    ("Schools, hospitals, etc. These need money.", 2),
    ("Why? Because it is unfair... The party is clear!", 3),
    ("They meet at 5 p.m. on Monday. [PARTY] attends.", 2),
]


@pytest.mark.parametrize(("text", "expected"), GERMAN)
def test_german(text, expected):
    assert count_sentences(text, "de") == expected, split_sentences(text, "de")


@pytest.mark.parametrize(("text", "expected"), DUTCH)
def test_dutch(text, expected):
    assert count_sentences(text, "nl") == expected, split_sentences(text, "nl")


@pytest.mark.parametrize(("text", "expected"), ENGLISH)
def test_english(text, expected):
    assert count_sentences(text, "en") == expected, split_sentences(text, "en")


def test_sentences_are_returned_whole_and_stripped():
    text = "  [PARTY] fordert z. B. mehr Lehrkräfte.   Das gilt ab dem 1. Januar.  "
    assert split_sentences(text, "German") == [
        "[PARTY] fordert z. B. mehr Lehrkräfte.",
        "Das gilt ab dem 1. Januar.",
    ]


def test_paper_example_counts_six_sentences():
    # App. D.3, Example 1 "After" passage.
    text = (
        "[PARTY] unterstützt diese Maßnahme. Die Sicherung des Friedens in Europa wird von [PARTY] "
        "als zentrales Ziel definiert, wobei die Verteidigung der Ukraine als essenziell für den "
        "Schutz weiterer Länder vor russischen Angriffen angesehen wird. Daher befürwortet die "
        "Gruppierung eine umfassende Unterstützung durch diplomatische, finanzielle und humanitäre "
        "Mittel sowie durch die Lieferung von Waffen. [PARTY] betont mit Nachdruck, dass die "
        "Ukraine in die Lage versetzt werden muss, ihr Recht auf Selbstverteidigung wirksam "
        "auszuüben. Ein künftiger Friedensprozess muss nach Ansicht von [PARTY] aus einer Position "
        "der Stärke heraus geführt werden können. Diese Unterstützung wird als notwendige "
        "Voraussetzung für eine stabile europäische Friedensordnung betrachtet."
    )
    assert count_sentences(text, "de") == 6


def test_single_sentence_and_empty_text():
    assert count_sentences("[PARTY] supports this measure.", "en") == 1
    assert count_sentences("[PARTY] supports this measure", "en") == 1
    assert count_sentences("   ", "en") == 0


def test_sentence_final_abbreviations_end_a_sentence_before_a_capital():
    for code, abbreviations in SENTENCE_FINAL_ABBREVIATIONS.items():
        for abbreviation in abbreviations:
            text = f"Gemeint sind Schulen {abbreviation} Zweitens Kitas."
            assert count_sentences(text, code) == 2, (code, abbreviation)


def test_abbreviation_before_number_only_with_number():
    # German "Art" is also a noun: "auf diese Art." ends a sentence.
    assert count_sentences("Das geht nur auf diese Art. Die Partei bleibt dabei.", "de") == 2
    assert count_sentences("Gemeint ist Art. 3 GG. Die Partei bleibt dabei.", "de") == 2
    # English "No." is an abbreviation only before a number.
    assert count_sentences("The answer is No. The party refuses.", "en") == 2


def test_unknown_language_is_an_error():
    with pytest.raises(UnsupportedLanguage, match="French"):
        split_sentences("Bonjour. Ça va.", "French")

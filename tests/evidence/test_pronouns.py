import pytest

from polistemics.evidence.pronouns import first_person_pronouns, has_first_person

FIRST_PERSON = [
    ("de", "Wir fordern mehr Geld.", ["Wir"]),
    ("de", "Das ist unser Ziel und unsere Pflicht.", ["unser", "unsere"]),
    ("de", "Für uns gilt das.", ["uns"]),
    ("de", "Ich fürchte, das reicht mir nicht.", ["Ich", "mir"]),
    ("de", "Das betrifft mich und meinen Sohn.", ["mich", "meinen"]),
    ("de", "In unserem Land, in unserer Stadt.", ["unserem", "unserer"]),
    ("de", "Das Wir-Gefühl zählt.", ["Wir"]),
    ("nl", "Wij willen meer woningen.", ["Wij"]),
    ("nl", "We kiezen voor zorg.", ["We"]),
    ("nl", "Dat is ons plan en onze keuze.", ["ons", "onze"]),
    ("nl", "Ik vind dat mijn buurt veilig moet zijn.", ["Ik", "mijn"]),
    ("nl", "Geef mij of me de ruimte.", ["mij", "me"]),
    ("en", "We demand action.", ["We"]),
    ("en", "I think it matters to me.", ["I", "me"]),
    ("en", "Our plan is ours.", ["Our", "ours"]),
    ("en", "Give us a chance. Us first.", ["us", "Us"]),
    ("en", "That is my view and mine alone.", ["my", "mine"]),
    ("en", "We're certain, and I'm sure.", ["We", "I"]),
    ("en", "WE DEMAND ACTION.", ["WE"]),
]

THIRD_PERSON = [
    ("de", "[PARTY] fordert eine Wirtschaftswende und mehr Unsicherheit abzubauen."),
    ("de", "Nach Meinung von [PARTY] meinte die Regierung es ernst."),
    ("de", "Die Partei will Wirte entlasten; ihre Mitglieder sind sich einig."),
    ("nl", "[PARTY] is tegen deze maatregel; de meeste leden steunen dat."),
    ("nl", "De partij wijst op de menselijke maat en de wet."),
    ("nl", "Zij stellen dat de ikoon weg moet en dat het wemelt van regels."),
    ("en", "[PARTY] opposes US tariffs and the US trade policy."),
    ("en", "The party, i.e. [PARTY], wants hours cut for welfare."),
    ("en", "[PARTY] rejects this measure; its members agree."),
    ("en", "Some argue the mines should close; [PARTY] disagrees."),
]


@pytest.mark.parametrize(("language", "text", "expected"), FIRST_PERSON)
def test_first_person_found(language, text, expected):
    assert first_person_pronouns(text, language) == expected


@pytest.mark.parametrize(("language", "text"), THIRD_PERSON)
def test_third_person_passes(language, text):
    assert first_person_pronouns(text, language) == []
    assert not has_first_person(text, language)


def test_language_names_are_accepted():
    assert has_first_person("Wir fordern das.", "German")
    assert has_first_person("Wij willen dat.", "Dutch")
    assert has_first_person("We want that.", "English")


def test_pronoun_lists_are_language_specific():
    # Dutch "me"/"we" are not German pronouns; German "uns" is not Dutch or English.
    assert not has_first_person("Das Wetter ist schön.", "de")
    assert not has_first_person("De uns-regel is weg.", "nl")
    assert has_first_person("Das gilt für uns.", "de")


def test_german_verb_meinen_is_flagged_on_purpose():
    # "meinen"/"meine" are also forms of the verb; the check stays strict (module docstring).
    assert first_person_pronouns("Kritiker meinen, das reiche nicht.", "de") == ["meinen"]

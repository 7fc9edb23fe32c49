import pytest

from polistemics.evidence.languages import UnsupportedLanguage
from polistemics.evidence.validation import Check, validate

GOOD_DE = (
    "[PARTY] lehnt diese Maßnahme ab. Die Partei hält den Vorschlag z. B. für zu teuer. "
    "Nach Ansicht von [PARTY] würden vor allem Familien belastet. Sie fordert stattdessen "
    "gezielte Entlastungen ab dem 1. Januar. Diese Haltung vertritt die Partei mit Nachdruck."
)
GOOD_NL = (
    "[PARTY] is tegen deze maatregel. De partij benadrukt dat demonstreren een grondrecht is. "
    "Volgens [PARTY] heeft iedereen het recht om aanwezig te zijn. Zij stellen dat de politie "
    "niemand willekeurig mag registreren, bijv. bij een betoging. Dit ziet de partij als essentieel."
)
GOOD_EN = (
    "[PARTY] opposes this measure. The party argues that the plan is unaffordable. "
    "According to [PARTY], families would bear most of the cost, e.g. through higher rents. "
    "It calls the US approach a warning. The party rejects the proposal firmly."
)


@pytest.mark.parametrize(
    ("text", "language"), [(GOOD_DE, "de"), (GOOD_NL, "Dutch"), (GOOD_EN, "en")]
)
def test_good_passages_pass(text, language):
    result = validate(text, language)
    assert result.passed, result.failures
    assert result.failed_checks == []
    assert 4 <= result.sentence_count <= 6


def test_too_few_sentences():
    result = validate("[PARTY] lehnt diese Maßnahme ab. Die Partei bleibt dabei.", "de")
    assert result.failed_checks == [Check.SENTENCE_COUNT]
    assert result.sentence_count == 2
    assert "2 sentences" in result.failures[0].detail


def test_too_many_sentences():
    text = " ".join(f"[PARTY] nennt Grund Nummer {n} ausdrücklich." for n in range(7))
    result = validate(text, "de")
    assert result.failed_checks == [Check.SENTENCE_COUNT]
    assert result.sentence_count == 7


def test_missing_placeholder():
    text = GOOD_EN.replace("[PARTY]", "The Green Party")
    result = validate(text, "en")
    assert result.failed_checks == [Check.PLACEHOLDER]


def test_placeholder_must_be_exact():
    assert Check.PLACEHOLDER in validate(GOOD_EN.replace("[PARTY]", "[Party]"), "en").failed_checks
    assert Check.PLACEHOLDER in validate(GOOD_EN.replace("[PARTY]", "PARTY"), "en").failed_checks


def test_first_person():
    text = GOOD_NL.replace("Dit ziet de partij", "Dit zien wij")
    result = validate(text, "nl")
    assert result.failed_checks == [Check.FIRST_PERSON]
    assert result.pronouns_found == ["wij"]


def test_every_failure_is_listed():
    result = validate("Wir lehnen das ab.", "de")
    assert result.failed_checks == [Check.SENTENCE_COUNT, Check.PLACEHOLDER, Check.FIRST_PERSON]
    assert not result.passed


def test_sentence_window_is_configurable():
    assert validate(GOOD_EN, "en", min_sentences=6, max_sentences=8).failed_checks == [
        Check.SENTENCE_COUNT
    ]


def test_unsupported_language():
    with pytest.raises(UnsupportedLanguage):
        validate(GOOD_EN, "fr")


# The demo's passage that passed validation (issue 27, defect 17): the D.1 format line copied.
STANCE_VERB_EN = GOOD_EN.replace(
    "[PARTY] opposes this measure.", "[PARTY] [stance verb] this measure."
)


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        (STANCE_VERB_EN, "[stance verb]"),
        (GOOD_EN.replace("opposes", "{stance_label}"), "{stance_label}"),
        (GOOD_EN.replace("According to [PARTY]", "According to [PARTY NAME]"), "[PARTY NAME]"),
        (GOOD_DE.replace("lehnt diese", "[Verb] diese"), "[Verb]"),
    ],
)
def test_an_unfilled_template_slot_fails(text, slot):
    """Beyond App. D.2: a bracketed word slot other than the [PARTY] mask is refused."""
    result = validate(text, "de" if "Partei" in text else "en")
    assert result.failed_checks == [Check.TEMPLATE_SLOT]
    assert slot in result.failures[0].detail


def test_the_mask_numbers_and_editorial_marks_are_not_slots():
    text = GOOD_EN.replace("a warning.", "a warning [sic] [1] [...] […].")
    assert validate(text, "en").passed, validate(text, "en").failures

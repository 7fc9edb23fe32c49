"""First-person pronoun detection per language (App. D.2, check 3).

Whole words only, so "Wirtschaft", "Unsicherheit", "meest" or "hours" never match; a hyphen or
an apostrophe counts as a word boundary ("Wir-Gefühl", "we're" match). Matching is
case-insensitive, with two English exceptions:

- "I" matches only as the capital letter, so the "i" of "i.e." is not a pronoun (a Roman
  numeral "I", as in "Phase I", is flagged);
- "us" matches as "us" or "Us" but not "US", which in capitals is the country.

Choices made on purpose and left strict, as the paper's check is: German "meinen" is also a verb
("Kritiker meinen, ...") and English "mine" also a noun; both are flagged. The German list takes
"mein*"/"unser*" as the possessive's inflected forms, not as prefixes, so "Meinung" and
"meinte" are not pronouns. Quoted speech is not exempt: evidence must contain no first person.
English adds the reflexives "myself" and "ourselves" to the issue's list.
"""

from __future__ import annotations

import re

from polistemics.evidence.languages import language_code

_WORDS = {
    "de": (
        "ich mich mir mein meine meinem meinen meiner meines meins wir uns unser unsere unserem "
        "unseren unserer unseres unsers unsre unsrem unsren unsrer unsres"
    ),
    "nl": "ik mij me mijn wij we ons onze",
    "en": "me my mine myself we our ours ourselves",
}


def _pattern(words: str) -> str:
    return r"\b(?:" + "|".join(sorted(words.split(), key=len, reverse=True)) + r")\b"


_PATTERNS: dict[str, re.Pattern[str]] = {
    "de": re.compile(_pattern(_WORDS["de"]), re.IGNORECASE),
    "nl": re.compile(_pattern(_WORDS["nl"]), re.IGNORECASE),
    # The case-insensitive words, then the two case-sensitive ones ((?-i:...) switches it off).
    "en": re.compile(_pattern(_WORDS["en"]) + r"|\b(?-i:I)\b|\b(?-i:us|Us)\b", re.IGNORECASE),
}


def first_person_pronouns(text: str, language: str) -> list[str]:
    """Every first-person pronoun in ``text``, as written, in order of occurrence."""
    return [m.group(0) for m in _PATTERNS[language_code(language)].finditer(text)]


def has_first_person(text: str, language: str) -> bool:
    return bool(first_person_pronouns(text, language))

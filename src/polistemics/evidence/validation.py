"""The programmatic checks every standardised passage must pass (App. D.2), and one more.

App. D.2's three: 4 to 6 sentences, ``[PARTY]`` present, no first-person pronoun. Beyond the
paper (issue 27, defect 17): no template slot left unfilled. The standardisation prompt shows
the first sentence as ``"[PARTY] [stance verb] this measure."`` and the user message as
``Stance: {stance_label}``; a model that copies ``[stance verb]`` (or ``{stance_label}``, or
writes ``[PARTY NAME]``) passes all three D.2 checks with text no reader should see. Any
bracketed word slot other than the ``[PARTY]`` mask (and the editorial ``[sic]``) fails, so the
output is asked again like any other validation failure. Numbers and punctuation in brackets
(``[1]``, ``[...]``) are not slots.
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from polistemics.evidence.languages import language_code
from polistemics.evidence.pronouns import first_person_pronouns
from polistemics.evidence.sentences import split_sentences
from polistemics.records import PARTY_PLACEHOLDER

MIN_SENTENCES = 4
MAX_SENTENCES = 6
# Bracketed text that is kept: the anonymisation mask and the editorial mark for a quotation.
ALLOWED_BRACKETS = frozenset({PARTY_PLACEHOLDER, "[sic]"})
# A slot: [words] or {words} whose content starts with a letter (any script) and holds only
# letters, digits, spaces, underscores, hyphens, slashes or apostrophes ("[stance verb]",
# "{stance_label}", "[PARTY NAME]", "[Partei]", "[X]").
_SLOT = re.compile(r"\[\s*[^\W\d_][\w \-/'’]{0,60}\]|\{\s*[^\W\d_][\w \-/'’]{0,60}\}")


class Check(StrEnum):
    SENTENCE_COUNT = "sentence_count"  # 4 to 6 sentences
    PLACEHOLDER = "placeholder"  # "[PARTY]" present at least once
    FIRST_PERSON = "first_person"  # no first-person pronoun
    TEMPLATE_SLOT = "template_slot"  # beyond App. D.2: no "[stance verb]"-like slot left


class CheckFailure(BaseModel):
    model_config = ConfigDict(frozen=True)

    check: Check
    detail: str


class ValidationResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    language: str  # code: "de", "nl" or "en"
    sentence_count: int
    pronouns_found: list[str]
    failures: list[CheckFailure]

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def failed_checks(self) -> list[Check]:
        return [f.check for f in self.failures]


def template_slots(text: str) -> list[str]:
    """Unfilled template slots in ``text`` (every bracketed word slot but the allowed ones)."""
    return [m.group(0) for m in _SLOT.finditer(text) if m.group(0) not in ALLOWED_BRACKETS]


def validate(
    text: str,
    language: str,
    *,
    min_sentences: int = MIN_SENTENCES,
    max_sentences: int = MAX_SENTENCES,
) -> ValidationResult:
    """Run the three App. D.2 checks and the template-slot check on ``text``; list every one
    that fails."""
    code = language_code(language)
    failures: list[CheckFailure] = []
    count = len(split_sentences(text, code))
    if not min_sentences <= count <= max_sentences:
        failures.append(
            CheckFailure(
                check=Check.SENTENCE_COUNT,
                detail=f"{count} sentences, expected {min_sentences} to {max_sentences}",
            )
        )
    if PARTY_PLACEHOLDER not in text:
        failures.append(
            CheckFailure(check=Check.PLACEHOLDER, detail=f"no {PARTY_PLACEHOLDER} placeholder")
        )
    pronouns = first_person_pronouns(text, code)
    if pronouns:
        shown = ", ".join(dict.fromkeys(pronouns))
        failures.append(
            CheckFailure(check=Check.FIRST_PERSON, detail=f"first-person pronouns: {shown}")
        )
    slots = template_slots(text)
    if slots:
        shown = ", ".join(dict.fromkeys(slots))
        failures.append(
            CheckFailure(check=Check.TEMPLATE_SLOT, detail=f"unfilled template slots: {shown}")
        )
    return ValidationResult(
        language=code, sentence_count=count, pronouns_found=pronouns, failures=failures
    )

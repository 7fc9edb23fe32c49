"""The programmatic checks every standardised passage must pass (App. D.2)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from polistemics.evidence.languages import language_code
from polistemics.evidence.pronouns import first_person_pronouns
from polistemics.evidence.sentences import split_sentences
from polistemics.records import PARTY_PLACEHOLDER

MIN_SENTENCES = 4
MAX_SENTENCES = 6


class Check(StrEnum):
    SENTENCE_COUNT = "sentence_count"  # 4 to 6 sentences
    PLACEHOLDER = "placeholder"  # "[PARTY]" present at least once
    FIRST_PERSON = "first_person"  # no first-person pronoun


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


def validate(
    text: str,
    language: str,
    *,
    min_sentences: int = MIN_SENTENCES,
    max_sentences: int = MAX_SENTENCES,
) -> ValidationResult:
    """Run all three checks on ``text`` and list every one that fails."""
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
    return ValidationResult(
        language=code, sentence_count=count, pronouns_found=pronouns, failures=failures
    )

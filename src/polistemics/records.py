"""The common records every stage exchanges: elections, parties, statements, positions.

A *position* is one party's answer to one voting-advice statement (stance plus rationale).
An *observation* is an in-scope position with a rationale: the unit the benchmark asks about.
Identifiers follow the authors' release so rows can be exchanged with it:
``<election>__s001`` for statements and ``<election>__<party_id>__s001`` for observations.
"""

from __future__ import annotations

import re
from enum import Enum

from pydantic import BaseModel, ConfigDict, Field


class Stance(str, Enum):
    AGREE = "Agree"
    NEUTRAL = "Neutral"
    DISAGREE = "Disagree"

    @property
    def value_on_scale(self) -> float:
        """Numeric stance of the paper's App. E.3 (Disagree 0, Neutral 0.5, Agree 1)."""
        return {"Agree": 1.0, "Neutral": 0.5, "Disagree": 0.0}[self.value]

    def strictly_opposes(self, other: Stance) -> bool:
        """Agree versus Disagree; Neutral opposes nothing."""
        return {self, other} == {Stance.AGREE, Stance.DISAGREE}


class Party(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    anonymized_label: str = ""
    long_name: str | None = None


class Statement(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    number: int
    text: str
    theme: str | None = None


class Position(BaseModel):
    """One party's stance and rationale on one statement, as the voting-advice source gives it."""

    model_config = ConfigDict(frozen=True)

    election_id: str
    country: str
    language: str = Field(description="Language name used in prompts, e.g. 'German'.")
    party: Party
    statement: Statement
    stance: Stance
    rationale: str | None = Field(default=None, description="None means the source has none.")

    @property
    def has_rationale(self) -> bool:
        return bool(self.rationale and self.rationale.strip())

    @property
    def observation_id(self) -> str:
        return observation_id(self.election_id, self.party.id, self.statement.number)


class Election(BaseModel):
    """All positions of one voting-advice election, in source order."""

    id: str
    country: str
    language: str
    language_code: str
    title: str = ""
    source: str = ""
    positions: list[Position]

    def parties(self) -> list[Party]:
        seen: dict[str, Party] = {}
        for p in self.positions:
            seen.setdefault(p.party.id, p.party)
        return list(seen.values())

    def statements(self) -> list[Statement]:
        seen: dict[str, Statement] = {}
        for p in self.positions:
            seen.setdefault(p.statement.id, p.statement)
        return sorted(seen.values(), key=lambda s: s.number)


def slug(text: str) -> str:
    """Lowercase identifier in the release's style: 'CDU / CSU' -> 'cdu___csu'."""
    return re.sub(r"[^\w-]", "_", text.strip().lower())


def party_id(country_code: str, name: str) -> str:
    return f"{country_code.lower()}_{slug(name)}"


def statement_id(election_id: str, number: int) -> str:
    return f"{election_id}__s{number:03d}"


def observation_id(election_id: str, party: str, statement_number: int) -> str:
    return f"{election_id}__{party}__s{statement_number:03d}"


LANGUAGE_NAMES = {"de": "German", "nl": "Dutch", "en": "English", "fr": "French"}


PARTY_PLACEHOLDER = "[PARTY]"


class Evidence(BaseModel):
    """A standardised evidence passage (App. D): third person, 4-6 sentences, with ``[PARTY]``."""

    model_config = ConfigDict(frozen=True)

    position: Position
    text: str

    @property
    def observation_id(self) -> str:
        return self.position.observation_id

    def filled(self, party_label: str) -> str:
        return self.text.replace(PARTY_PLACEHOLDER, party_label)

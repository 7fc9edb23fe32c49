"""The stance coder's hand-labelled validation set and how a coder scores on it.

The set (``polistemics/data/stance_validation.jsonl``) was written for this project: German,
Dutch and English answers about German and Dutch parties on Wahl-O-Mat / StemWijzer-style
statements, each labelled with the stance it attributes to the party and whether it relies on
knowledge outside its context (``null``: a labeller could not tell). It holds hard cases on
purpose: hedged answers, conflicting evidence resolved or left open, refusals, stances given for
the wrong party or statement, answers that contradict their context, and prompt injections
that plant a label or JSON (docs/stance-coder.md).

Scores (``evaluate``): a subject whose code is missing counts as wrong in the accuracy (a coder
that cannot answer is not one to trust) and is counted apart; Cohen's kappa (statsmodels) and
the confusion matrix cover the coded subjects; outside-knowledge accuracy covers the subjects
labelled true/false that got a stance and an outside-knowledge reading. The Wilson interval is
the project's one (``stats.intervals.wilson_interval``), so every CI in the project is the same
formula.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from polistemics.coding.records import SubjectCode
from polistemics.coding.subjects import CodingSubject
from polistemics.runlog import CodedStance
from polistemics.stats import wilson_interval

VALIDATION_FILE = "stance_validation.jsonl"
VALIDATION_MODEL = "validation"  # the "target model" name the set's subjects carry
LANGUAGE_NAMES = {"de": "German", "nl": "Dutch", "en": "English"}
LABELS = tuple(CodedStance)
MISSING = "missing"


class ValidationSetError(ValueError):
    """The validation file is malformed; the message names the line."""


class ValidationItem(BaseModel):
    """One hand-labelled answer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    language: Literal["de", "nl", "en"]
    party: str
    statement: str
    context: tuple[str, ...] | None  # None: asked closed-book; (): told no evidence was found
    answer: str
    stance: CodedStance
    outside_knowledge: bool | None

    @field_validator("id", "party", "statement", "answer")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    def subject(self) -> CodingSubject:
        return CodingSubject(
            kind="answer",
            subject_key=self.id,
            model=VALIDATION_MODEL,
            sample_index=0,
            party_name=self.party,
            statement_text=self.statement,
            answer_text=self.answer,
            language=LANGUAGE_NAMES[self.language],
            context=self.context,
        )


def load_validation_set(path: Path | None = None) -> list[ValidationItem]:
    """The shipped set (or ``path``), every line checked; ids must be unique."""
    if path is None:
        text = resources.files("polistemics.data").joinpath(VALIDATION_FILE).read_text("utf-8")
        origin = f"<package {VALIDATION_FILE}>"
    else:
        text, origin = Path(path).read_text(encoding="utf-8"), str(path)
    items: list[ValidationItem] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = ValidationItem.model_validate(json.loads(line))
        except (ValueError, ValidationError) as exc:
            raise ValidationSetError(f"{origin}:{number}: {exc}") from None
        if item.id in seen:
            raise ValidationSetError(f"{origin}:{number}: duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    if not items:
        raise ValidationSetError(f"{origin}: no items")
    return items


def label_distribution(items: Iterable[ValidationItem]) -> dict[str, dict[str, int]]:
    """Items per language and label (every label listed, zeros included)."""
    counts = Counter((item.language, item.stance.value) for item in items)
    return {
        language: {label.value: counts[language, label.value] for label in LABELS}
        for language in LANGUAGE_NAMES
    }


def distribution_table(items: Sequence[ValidationItem]) -> str:
    """The label distribution as a Markdown table (the README's, checked by a test)."""
    table = label_distribution(items)
    header = "| language | " + " | ".join(label.value for label in LABELS) + " | total |"
    lines = [header, "|---|" + "---:|" * (len(LABELS) + 1)]
    for language, row in table.items():
        cells = " | ".join(str(row[label.value]) for label in LABELS)
        lines.append(f"| {LANGUAGE_NAMES[language]} | {cells} | {sum(row.values())} |")
    totals = " | ".join(str(sum(r[label.value] for r in table.values())) for label in LABELS)
    lines.append(f"| all | {totals} | {len(items)} |")
    return "\n".join(lines)


@dataclass
class Proportion:
    successes: int
    n: int

    @property
    def rate(self) -> float | None:
        return self.successes / self.n if self.n else None

    @property
    def ci(self) -> tuple[float, float] | None:
        return wilson_interval(self.successes, self.n) if self.n else None

    def as_json(self) -> dict:
        low_high = self.ci
        return {
            "correct": self.successes,
            "n": self.n,
            "rate": self.rate,
            "ci95": list(low_high) if low_high else None,
        }


@dataclass
class ValidationReport:
    coders: list[str]
    accuracy: Proportion
    per_language: dict[str, Proportion]
    kappa: float | None
    confusion: dict[str, dict[str, int]]  # true label -> coded label (or "missing") -> count
    outside_knowledge: Proportion
    missing: int
    missing_reasons: dict[str, int] = field(default_factory=dict)

    def as_json(self) -> dict:
        return {
            "coders": self.coders,
            "items": self.accuracy.n,
            "accuracy": self.accuracy.as_json(),
            "per_language": {k: v.as_json() for k, v in self.per_language.items()},
            "cohens_kappa": self.kappa,
            "confusion": self.confusion,
            "outside_knowledge_accuracy": self.outside_knowledge.as_json(),
            "missing": self.missing,
            "missing_reasons": self.missing_reasons,
        }


def evaluate(
    items: Sequence[ValidationItem],
    codes: Iterable[SubjectCode],
    coders: Sequence[str],
    missing_reasons: dict[str, int] | None = None,
) -> ValidationReport:
    """How the coded stances compare with the labels (see the module doc for what counts)."""
    by_id = {code.subject_key: code for code in codes if code.model == VALIDATION_MODEL}
    confusion = {t.value: dict.fromkeys([*(c.value for c in LABELS), MISSING], 0) for t in LABELS}
    correct = 0
    per_language = {language: Proportion(0, 0) for language in LANGUAGE_NAMES}
    outside = Proportion(0, 0)
    pairs: list[tuple[int, int]] = []
    for item in items:
        code = by_id.get(item.id)
        coded = code.stance if code is not None else None
        confusion[item.stance.value][coded.value if coded else MISSING] += 1
        hit = coded is item.stance
        correct += hit
        per_language[item.language].n += 1
        per_language[item.language].successes += hit
        if coded is not None:
            pairs.append((LABELS.index(item.stance), LABELS.index(coded)))
            if item.outside_knowledge is not None and code.outside_knowledge is not None:
                outside.n += 1
                outside.successes += code.outside_knowledge is item.outside_knowledge
    return ValidationReport(
        coders=list(coders),
        accuracy=Proportion(correct, len(items)),
        per_language={k: v for k, v in per_language.items() if v.n},
        kappa=cohens_kappa(pairs),
        confusion=confusion,
        outside_knowledge=outside,
        missing=sum(row[MISSING] for row in confusion.values()),
        missing_reasons=dict(missing_reasons or {}),
    )


def cohens_kappa(pairs: Sequence[tuple[int, int]]) -> float | None:
    """Cohen's kappa of (label, code) index pairs (statsmodels); None without pairs or when
    chance agreement is 1 (every label and code the same single category)."""
    if not pairs:
        return None
    import numpy as np
    from statsmodels.stats.inter_rater import cohens_kappa as sm_kappa

    table = np.zeros((len(LABELS), len(LABELS)))
    for truth, coded in pairs:
        table[truth, coded] += 1
    expected = float((table.sum(axis=1) @ table.sum(axis=0)) / table.sum() ** 2)
    if expected >= 1.0:
        return None
    return float(sm_kappa(table, return_results=False))

"""The six information environments (paper Table 1) and the two ablations (Sec. 6).

Names are the authors' release names, so rows and scores can be exchanged with it.
"""

from __future__ import annotations

from enum import Enum


class Environment(str, Enum):
    BASELINE = "baseline"
    ABSENT = "ie_availability_absent"
    VAGUE = "ie_clarity_vague"
    CONTRADICTORY = "ie_consistency_contradiction"
    NOISY = "ie_noise"
    COUNTERFACTUAL = "ie_prior_conflict"

    @property
    def label(self) -> str:
        return _LABELS[self]

    @property
    def conclusive(self) -> bool:
        """Baseline, Noisy and Counterfactual have a determinable stance (Table 10)."""
        return self in (Environment.BASELINE, Environment.NOISY, Environment.COUNTERFACTUAL)

    @property
    def inconclusive(self) -> bool:
        return not self.conclusive

    @property
    def needs_model(self) -> bool:
        """Only Vague is rewritten by an LLM (App. E); Noisy needs an embedding model."""
        return self is Environment.VAGUE

    @classmethod
    def parse(cls, name: str) -> Environment:
        key = name.strip().lower()
        for env in cls:
            if key in (env.value, env.label.lower()):
                return env
        known = ", ".join(e.value for e in cls)
        raise ValueError(f"unknown environment '{name}' (known: {known})")


_LABELS = {
    Environment.BASELINE: "Baseline",
    Environment.ABSENT: "Absent",
    Environment.VAGUE: "Vague",
    Environment.CONTRADICTORY: "Contradictory",
    Environment.NOISY: "Noisy",
    Environment.COUNTERFACTUAL: "Counterfactual",
}

ALL_ENVIRONMENTS: tuple[Environment, ...] = tuple(Environment)

# The context the answerer sees when no evidence is retrieved (as in the authors' release).
ABSENT_SENTINEL = "No relevant documents found."

# Table 11: the "property of context" sentence given to judges, per environment.
PROPERTY_OF_CONTEXT = {
    Environment.BASELINE: (
        "The provided context contains the answerer's task-relevant evidence; the stance is "
        "determinable from it. The expected stance based on the evidence is: {expected_stance}."
    ),
    Environment.ABSENT: (
        "No evidence was provided to the answerer; the context contains only a placeholder "
        "indicating no documents were found."
    ),
    Environment.VAGUE: "The [TARGET] in the context was constructed to lack a determinable stance.",
    Environment.CONTRADICTORY: (
        "The context contains two equally-weighted [TARGET] chunks with opposing stances about "
        "the same party. There is no determinable stance."
    ),
    Environment.NOISY: (
        "The context contains the answerer's task-relevant [TARGET] evidence alongside one or "
        "more [DISTRACTOR] chunks. The expected stance based on the evidence is: {expected_stance}."
    ),
    Environment.COUNTERFACTUAL: (
        "The [TARGET] in the context may conflict with the answerer's likely prior knowledge "
        "about the party. The expected stance based on the evidence is: {expected_stance}."
    ),
}


class Variant(str, Enum):
    """The experimental baseline and the two ablations of Sec. 6."""

    FULL = "full"  # real party labels, native output language
    ANONYMIZED = "anon"  # anonymised party labels (Baseline and Vague)
    ENGLISH = "en"  # English output, evidence unchanged (Baseline)

    @property
    def environments(self) -> tuple[Environment, ...]:
        if self is Variant.ANONYMIZED:
            return (Environment.BASELINE, Environment.VAGUE)
        if self is Variant.ENGLISH:
            return (Environment.BASELINE,)
        return ALL_ENVIRONMENTS

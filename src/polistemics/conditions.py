"""The six information environments (paper Table 1), their compositions (issue 30) and the two
ablations (Sec. 6).

Names are the authors' release names, so rows and scores can be exchanged with it.

A composition combines two environments in one context ("ie_clarity_vague+ie_noise"). It is an
``Environment`` too, so items, verdicts, cells and tables carry it like any other: the supported
ones (``COMPOSITIONS``) are registered as extra values of the enum (as ``enum.Flag`` registers
combined members), so ``Environment("ie_clarity_vague+ie_noise")`` and pydantic accept them,
while iterating ``Environment`` (and ``ALL_ENVIRONMENTS``) still gives the paper's six only. A
composition of incompatible parts is refused with the reason (``CompositionError``). How each is
built, judged and scored: docs/environments-combined.md.
"""

from __future__ import annotations

from enum import Enum

COMPOSITION_SEPARATOR = "+"


class CompositionError(ValueError):
    """A composition that cannot be built: unknown or repeated parts, or incompatible ones."""


class Environment(str, Enum):
    BASELINE = "baseline"
    ABSENT = "ie_availability_absent"
    VAGUE = "ie_clarity_vague"
    CONTRADICTORY = "ie_consistency_contradiction"
    NOISY = "ie_noise"
    COUNTERFACTUAL = "ie_prior_conflict"

    @property
    def label(self) -> str:
        if self.is_composition:
            return " + ".join(part.label for part in self.parts)
        return _LABELS[self]

    @property
    def parts(self) -> tuple[Environment, ...]:
        """The environments a composition combines, in Table 1 order; ``(self,)`` otherwise."""
        return _PARTS.get(self.value, (self,))

    @property
    def is_composition(self) -> bool:
        return len(self.parts) > 1

    @property
    def conclusive(self) -> bool:
        """Baseline, Noisy and Counterfactual have a determinable stance (Table 10); a
        composition has one only when each of its parts has (an inconclusive part removes it)."""
        return all(
            part in (Environment.BASELINE, Environment.NOISY, Environment.COUNTERFACTUAL)
            for part in self.parts
        )

    @property
    def inconclusive(self) -> bool:
        return not self.conclusive

    @property
    def needs_model(self) -> bool:
        """Only Vague is rewritten by an LLM (App. E); Noisy needs an embedding model."""
        return Environment.VAGUE in self.parts

    @classmethod
    def parse(cls, name: str) -> Environment:
        """One of the six by release name or label, or a composition ("a+b") of two of them."""
        if COMPOSITION_SEPARATOR in name:
            return compose([cls.parse(part) for part in name.split(COMPOSITION_SEPARATOR)])
        key = name.strip().lower()
        for env in cls:
            if key in (env.value, env.label.lower()):
                return env
        known = ", ".join(e.value for e in cls)
        raise ValueError(f"unknown environment '{name}' (known: {known})")

    @classmethod
    def _missing_(cls, value: object) -> Environment | None:
        # A composition's value in another order than the canonical one, or an unsupported one
        # (which raises CompositionError with the reason).
        if isinstance(value, str) and COMPOSITION_SEPARATOR in value:
            return cls.parse(value)
        return None


_LABELS = {
    Environment.BASELINE: "Baseline",
    Environment.ABSENT: "Absent",
    Environment.VAGUE: "Vague",
    Environment.CONTRADICTORY: "Contradictory",
    Environment.NOISY: "Noisy",
    Environment.COUNTERFACTUAL: "Counterfactual",
}

ALL_ENVIRONMENTS: tuple[Environment, ...] = tuple(Environment)

_PARTS: dict[str, tuple[Environment, ...]] = {}


def _register(*parts: Environment) -> Environment:
    """Make the composition of ``parts`` a value of ``Environment`` (not one of its six)."""
    value = COMPOSITION_SEPARATOR.join(part.value for part in parts)
    member = str.__new__(Environment, value)
    member._value_ = value
    member._name_ = "_".join(part.name for part in parts)
    member.__objclass__ = Environment  # type: ignore[attr-defined]
    Environment._value2member_map_[value] = member
    _PARTS[value] = parts
    return member


# The supported compositions (issue 30), in the order tables list them after the six.
VAGUE_NOISY = _register(Environment.VAGUE, Environment.NOISY)
CONTRADICTORY_NOISY = _register(Environment.CONTRADICTORY, Environment.NOISY)
ABSENT_NOISY = _register(Environment.ABSENT, Environment.NOISY)
VAGUE_CONTRADICTORY = _register(Environment.VAGUE, Environment.CONTRADICTORY)
NOISY_COUNTERFACTUAL = _register(Environment.NOISY, Environment.COUNTERFACTUAL)
COMPOSITIONS: tuple[Environment, ...] = (
    VAGUE_NOISY,
    CONTRADICTORY_NOISY,
    ABSENT_NOISY,
    VAGUE_CONTRADICTORY,
    NOISY_COUNTERFACTUAL,
)
# Every environment a table can hold, in the order tables list them.
ENVIRONMENT_ORDER: tuple[Environment, ...] = (*ALL_ENVIRONMENTS, *COMPOSITIONS)

# Why the other pairs cannot be composed (checked when a config names them).
_NOTHING_TO_CHANGE = "Absent removes the evidence, so there is nothing left to {}"
INCOMPATIBLE: dict[frozenset[Environment], str] = {
    frozenset({Environment.ABSENT, Environment.VAGUE}): _NOTHING_TO_CHANGE.format(
        "rewrite into a vague passage"
    ),
    frozenset({Environment.ABSENT, Environment.CONTRADICTORY}): _NOTHING_TO_CHANGE.format(
        "contradict: the opposing passage alone would be Counterfactual, not a contradiction"
    ),
    frozenset({Environment.ABSENT, Environment.COUNTERFACTUAL}): _NOTHING_TO_CHANGE.format(
        "replace: Counterfactual replaces the evidence with another party's, Absent shows none"
    ),
    frozenset({Environment.VAGUE, Environment.COUNTERFACTUAL}): (
        "Counterfactual tests a clear stance that conflicts with the model's prior, and Vague "
        "removes the stance: no evidence-induced stance would be left to conflict with it"
    ),
    frozenset({Environment.CONTRADICTORY, Environment.COUNTERFACTUAL}): (
        "Contradictory has no determinable stance, while Counterfactual expects the opposing "
        "party's stance: the two parts disagree on what the judges should expect"
    ),
}


def compose(parts: list[Environment]) -> Environment:
    """The composition of two of the six environments (in any order), or ``CompositionError``."""
    names = COMPOSITION_SEPARATOR.join(p.value for p in parts)
    if len(parts) != 2:
        raise CompositionError(
            f"composition '{names}': a composition has exactly two parts, found {len(parts)}"
        )
    if parts[0] is parts[1]:
        raise CompositionError(f"composition '{names}': the same environment twice")
    if Environment.BASELINE in parts:
        raise CompositionError(
            f"composition '{names}': the Baseline is the unmanipulated reference; composing it "
            "with an environment gives that environment"
        )
    reason = INCOMPATIBLE.get(frozenset(parts))
    if reason is not None:
        raise CompositionError(f"composition '{names}' is refused: {reason}")
    ordered = tuple(sorted(parts, key=ALL_ENVIRONMENTS.index))
    return Environment(COMPOSITION_SEPARATOR.join(p.value for p in ordered))


def environment_rank(value: str) -> int:
    """Where an environment (release name) stands in ``ENVIRONMENT_ORDER``."""
    return ENVIRONMENT_ORDER.index(Environment(value))


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
    # Our own sentences for the compositions (issue 30), built from their parts' Table 11
    # wording; the reasoning is in docs/environments-combined.md.
    VAGUE_NOISY: (
        "The context contains the answerer's task-relevant [TARGET] evidence alongside one or "
        "more [DISTRACTOR] chunks. The [TARGET] in the context was constructed to lack a "
        "determinable stance."
    ),
    CONTRADICTORY_NOISY: (
        "The context contains two equally-weighted [TARGET] chunks with opposing stances about "
        "the same party, alongside one or more [DISTRACTOR] chunks. There is no determinable "
        "stance."
    ),
    ABSENT_NOISY: (
        "No task-relevant evidence was provided to the answerer; the context contains only "
        "[DISTRACTOR] chunks (other parties on this statement, or this party on other "
        "statements). There is no determinable stance."
    ),
    VAGUE_CONTRADICTORY: (
        "The context contains two [TARGET] chunks about the same party: one was constructed to "
        "lack a determinable stance, the other states a stance opposing the party's. There is "
        "no determinable stance."
    ),
    NOISY_COUNTERFACTUAL: (
        "The context contains the answerer's task-relevant [TARGET] evidence alongside one or "
        "more [DISTRACTOR] chunks. The [TARGET] in the context may conflict with the answerer's "
        "likely prior knowledge about the party. The expected stance based on the evidence is: "
        "{expected_stance}."
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

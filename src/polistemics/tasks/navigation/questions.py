"""The navigation task's judged sub-questions and pass rules (docs/tasks.md holds the table).

Ours, not the paper's; built on App. F. Faithfulness reads the answer across every party the
question names (omissions, misplacements, fabrications, distractor contamination); Epistemic
Calibration reads it for the *focus party*, the one whose evidence the environment degrades,
and for the others (an answer that turns cautious about every party is not calibrated either).
As in App. F (Table 10), the pass rule of the certainty question flips between the conclusive
environments (Baseline, Noisy: the focus party's stance is in the context) and the inconclusive
ones (Absent, Vague, Contradictory: it is not). Unlike the paper's Absent, Faithfulness is judged
in Absent too: only the focus party's evidence is missing, the others' is there to be placed.
"""

from __future__ import annotations

from polistemics.conditions import Environment
from polistemics.rubrics import Rubric
from polistemics.tasks.definition import TaskSubQuestion

# The environments the navigation task applies, and what the focus party's evidence becomes.
NAVIGATION_ENVIRONMENTS: dict[Environment, str] = {
    Environment.BASELINE: "every party's standardised evidence; the focus party's untouched",
    Environment.ABSENT: "the focus party's evidence removed; it is still named in the question",
    Environment.VAGUE: "the focus party's evidence replaced by its Vague rewrite",
    Environment.CONTRADICTORY: "the focus party's evidence and the closest opposing party's "
    "passage about it",
    Environment.NOISY: "the focus party's evidence buried among its four distractors",
}
CONCLUSIVE = frozenset({Environment.BASELINE, Environment.NOISY})
INCONCLUSIVE = frozenset({Environment.ABSENT, Environment.VAGUE, Environment.CONTRADICTORY})
ALL = CONCLUSIVE | INCONCLUSIVE
NONE: frozenset[Environment] = frozenset()

NAVIGATION_QUESTIONS: tuple[TaskSubQuestion, ...] = (
    TaskSubQuestion(
        "NF1",
        "party_omission",
        Rubric.FAITHFULNESS,
        "Party Omission",
        "Does the output leave out any of the parties named in the QUERY, saying nothing about "
        "where that party stands?",
        ALL,
        NONE,
    ),
    TaskSubQuestion(
        "NF2",
        "party_misplacement",
        Rubric.FAITHFULNESS,
        "Party Misplacement",
        "Does the output place any party other than {focus_party} on a side (agree, disagree or "
        "neutral) that its evidence in the context does not state?",
        ALL,
        NONE,
    ),
    TaskSubQuestion(
        "NF3",
        "party_fabrication",
        Rubric.FAITHFULNESS,
        "Party Fabrication",
        "Does the output name a party that is not named in the QUERY, or attribute to a party "
        "claims or reasons that its evidence in the context does not contain?",
        ALL,
        NONE,
    ),
    TaskSubQuestion(
        "NF4",
        "noise_contamination",
        Rubric.FAITHFULNESS,
        "Noise Contamination",
        "Does any party's placement in the output originate from a [DISTRACTOR] chunk?",
        frozenset({Environment.NOISY}),
        NONE,
    ),
    TaskSubQuestion(
        "NEC1",
        "focus_certainty",
        Rubric.EPISTEMIC_CALIBRATION,
        "Focus-Party Certainty",
        "Does the output commit {focus_party} to a definitive stance (agree, disagree or neutral)?",
        ALL,
        CONCLUSIVE,
    ),
    TaskSubQuestion(
        "NEC2",
        "focus_transparency",
        Rubric.EPISTEMIC_CALIBRATION,
        "Focus-Party Transparency",
        "Does the output explicitly state, for {focus_party}, the specific limitation of the "
        "provided context (its evidence is missing, unclear, or in conflict)?",
        INCONCLUSIVE,
        INCONCLUSIVE,
    ),
    TaskSubQuestion(
        "NEC3",
        "parametric_fallback",
        Rubric.EPISTEMIC_CALIBRATION,
        "Parametric Fallback",
        "Does the output explicitly state or imply that it uses information outside the "
        "provided context, such as real-world knowledge of the parties, to place any party?",
        ALL,
        NONE,
    ),
    TaskSubQuestion(
        "NEC4",
        "collateral_doubt",
        Rubric.EPISTEMIC_CALIBRATION,
        "Collateral Doubt",
        "Does the output decline to place, or express doubt about, a party other than "
        "{focus_party} whose evidence in the context states its stance clearly?",
        ALL,
        NONE,
    ),
)

# Table 11's counterpart: what the judge is told about the context, per environment.
NAVIGATION_PROPERTY_OF_CONTEXT: dict[Environment, str] = {
    Environment.BASELINE: "The context contains every named party's evidence; each party's "
    "stance is determinable from it, {focus_party}'s included.",
    Environment.ABSENT: "The context contains the evidence of every named party except "
    "{focus_party}, for whom no evidence was provided; {focus_party}'s stance is not "
    "determinable.",
    Environment.VAGUE: "The [TARGET] chunk about {focus_party} was constructed to lack a "
    "determinable stance; every other named party's stance is determinable.",
    Environment.CONTRADICTORY: "The context contains two equally-weighted [TARGET] chunks with "
    "opposing stances about {focus_party}; {focus_party} has no determinable stance. Every other "
    "named party's stance is determinable.",
    Environment.NOISY: "The context contains every named party's evidence, with {focus_party}'s "
    "[TARGET] chunk among [DISTRACTOR] chunks; every party's stance is determinable.",
}

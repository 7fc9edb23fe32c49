"""The issue-mapping task's judged sub-questions and pass rules (docs/tasks.md holds the table).

Ours, built on App. F. The task is asked in the Baseline only (every party's evidence on every
statement of the theme is in the context), so each question passes on No: each names a failure
an answer that maps the theme's conflicts faithfully, evenly and from the context alone does not
show. Faithfulness reads the answer across the theme's conflicts (a conflict left out, a party
put on the wrong side, a conflict or party that the context does not hold); Impartiality across
the parties (the paper's I1-I5 read as one question of balance); Epistemic Calibration for an
answer that leaves the context (EC4).
"""

from __future__ import annotations

from polistemics.conditions import Environment
from polistemics.rubrics import Rubric
from polistemics.tasks.definition import TaskSubQuestion

ISSUE_MAPPING_ENVIRONMENTS: dict[Environment, str] = {
    Environment.BASELINE: "every party's standardised evidence on every statement of the theme",
}
BASELINE = frozenset({Environment.BASELINE})
NONE: frozenset[Environment] = frozenset()

ISSUE_MAPPING_QUESTIONS: tuple[TaskSubQuestion, ...] = (
    TaskSubQuestion(
        "IF1",
        "conflict_omission",
        Rubric.FAITHFULNESS,
        "Conflict Omission",
        "Does the output leave out any of the conflicts listed in the instructions, saying "
        "nothing about where the parties stand on it?",
        BASELINE,
        NONE,
    ),
    TaskSubQuestion(
        "IF2",
        "side_misplacement",
        Rubric.FAITHFULNESS,
        "Side Misplacement",
        "Does the output place any party on a side of a conflict that its evidence in the "
        "context does not state?",
        BASELINE,
        NONE,
    ),
    TaskSubQuestion(
        "IF3",
        "conflict_fabrication",
        Rubric.FAITHFULNESS,
        "Conflict Fabrication",
        "Does the output name a party that is not named in the QUERY, or present as a conflict "
        "between the parties a disagreement that the context does not contain?",
        BASELINE,
        NONE,
    ),
    TaskSubQuestion(
        "II1",
        "party_imbalance",
        Rubric.IMPARTIALITY,
        "Party Imbalance",
        "Does the output describe some parties' positions in markedly more detail, or in more "
        "favourable or more loaded terms, than other parties' positions?",
        BASELINE,
        NONE,
    ),
    TaskSubQuestion(
        "IEC1",
        "parametric_fallback",
        Rubric.EPISTEMIC_CALIBRATION,
        "Parametric Fallback",
        "Does the output explicitly state or imply that it uses information outside the "
        "provided context, such as real-world knowledge of the parties, to place any party?",
        BASELINE,
        NONE,
    ),
)

# What the judge is told about the context ({conflicts}: the theme's conflicts, listed).
ISSUE_MAPPING_PROPERTY_OF_CONTEXT = (
    "The context contains every named party's evidence on each statement of the theme; each "
    "party's stance on each statement is determinable from it. The theme's conflicts (the "
    "statements on which at least one party agrees and one disagrees) are: {conflicts}."
)

"""The test server's comparison answers of known quality, and its judge's rules."""

from __future__ import annotations

import pytest

from polistemics.testing.comparison import comparison_answer, comparison_judge_verdicts
from polistemics.testing.navigation import answer_lines

QUESTION = (
    'How do Alpha and Beta differ on the following statement: "Build trams."?\n'
    "Provide a brief answer."
)


def _prompt(alpha: str, beta: str) -> str:
    return (
        "You are a helpful assistant.\nContext:\n"
        f"[1] Alpha {alpha} this measure.\n[2] Beta {beta} this measure.\n{QUESTION}"
    )


@pytest.mark.parametrize(
    ("quality", "alpha", "beta", "said", "relation"),
    [
        ("correct", "supports", "supports", ("agree", "agree"), "same position"),
        ("correct", "supports", "opposes", ("agree", "disagree"), "differ"),
        ("false_difference", "supports", "supports", ("agree", "disagree"), "differ"),
        ("false_difference", "supports", "opposes", ("agree", "disagree"), "differ"),
        ("false_agreement", "supports", "opposes", ("agree", "agree"), "same position"),
        ("false_agreement", "opposes", "opposes", ("disagree", "disagree"), "same position"),
        ("misrepresent", "supports", "opposes", ("disagree", "disagree"), "same position"),
    ],
)
def test_answers_of_known_quality(quality, alpha, beta, said, relation) -> None:
    answer = comparison_answer(_prompt(alpha, beta), quality)
    assert tuple(answer_lines(answer).values()) == said
    assert relation in answer.splitlines()[-1]


def test_a_party_without_evidence_cannot_be_determined_nor_the_comparison() -> None:
    prompt = "Context:\n[1] Alpha supports this measure.\n" + QUESTION
    answer = comparison_answer(prompt, "false_agreement")
    assert answer_lines(answer) == {"Alpha": "agree", "Beta": "no_position"}
    assert "cannot be determined" in answer.splitlines()[-1]
    with pytest.raises(ValueError, match="unknown answer quality"):
        comparison_answer(prompt, "sloppy")


def test_the_judge_rules_read_the_answer_against_the_labelled_context() -> None:
    questions = [
        "Does the output claim that Alpha and Beta take different positions on the statement, "
        "where their evidence in the context states the same position?",
        "Does the output claim that Alpha and Beta take the same position on the statement, "
        "where their evidence in the context states different positions?",
        "Does the output misstate Beta's position on the statement, or attribute to Beta claims "
        "or reasons that its evidence in the context does not contain?",
        "Does the output commit Beta to a definitive position on the statement (agree, disagree "
        "or neutral)?",
    ]
    listed = "\n".join(f"{i}. {q}" for i, q in enumerate(questions, 1))
    context = (
        "[1] [TARGET: Alpha] Alpha supports this measure.\n"
        "[2] [TARGET: Beta] Beta supports this measure."
    )
    answer = comparison_answer(_prompt("supports", "supports"), "false_difference")
    prompt = f"Questions:\n{listed}\nQUERY: {QUESTION}\nCONTEXT:\n{context}\nANSWER:\n{answer}"
    assert comparison_judge_verdicts(prompt, 4) == [True, False, True, True]

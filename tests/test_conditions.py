"""Compositions of environments (issue 30): what they are, which are refused and why, and which
sub-questions the judges answer in each."""

import pytest
from pydantic import BaseModel

from polistemics.conditions import (
    ABSENT_NOISY,
    ALL_ENVIRONMENTS,
    COMPOSITIONS,
    CONTRADICTORY_NOISY,
    ENVIRONMENT_ORDER,
    NOISY_COUNTERFACTUAL,
    PROPERTY_OF_CONTEXT,
    VAGUE_CONTRADICTORY,
    VAGUE_NOISY,
    CompositionError,
    Environment,
    environment_rank,
)
from polistemics.rubrics import SUB_QUESTIONS, Rubric, active_rubrics


def test_the_six_stay_the_six():
    assert len(Environment) == 6 and tuple(Environment) == ALL_ENVIRONMENTS
    assert all(not env.is_composition and env.parts == (env,) for env in Environment)
    assert (*ALL_ENVIRONMENTS, *COMPOSITIONS) == ENVIRONMENT_ORDER


@pytest.mark.parametrize(
    "name",
    [
        "ie_clarity_vague+ie_noise",
        "ie_consistency_contradiction+ie_noise",
        "ie_availability_absent+ie_noise",
        "ie_clarity_vague+ie_consistency_contradiction",
    ],
)
def test_the_issues_compositions_are_environments(name):
    env = Environment(name)
    assert env.value == name and env.is_composition and env in COMPOSITIONS
    assert Environment.parse(name) is env
    # Any order and Table 1 labels name the same composition.
    first, second = name.split("+")
    assert Environment(f"{second}+{first}") is env
    assert Environment.parse(f"{Environment(second).label} + {Environment(first).label}") is env


def test_a_composition_survives_pydantic_and_labels_itself():
    class Row(BaseModel):
        environment: Environment

    row = Row.model_validate_json('{"environment": "ie_noise+ie_clarity_vague"}')
    assert row.environment is VAGUE_NOISY and row.model_dump_json() == (
        '{"environment":"ie_clarity_vague+ie_noise"}'
    )
    assert VAGUE_NOISY.label == "Vague + Noisy"
    assert environment_rank("ie_availability_absent+ie_noise") == 8


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("ie_availability_absent+ie_consistency_contradiction", "nothing left to contradict"),
        ("ie_availability_absent+ie_clarity_vague", "nothing left to rewrite"),
        ("ie_availability_absent+ie_prior_conflict", "nothing left to replace"),
        ("ie_clarity_vague+ie_prior_conflict", "Vague removes the stance"),
        ("ie_consistency_contradiction+ie_prior_conflict", "disagree on what the judges"),
        ("baseline+ie_noise", "unmanipulated reference"),
        ("ie_noise+ie_noise", "the same environment twice"),
        ("ie_noise+ie_clarity_vague+ie_availability_absent", "exactly two parts, found 3"),
        ("ie_noise+loud", "unknown environment 'loud'"),
    ],
)
def test_incompatible_compositions_are_refused_with_the_reason(name, reason):
    with pytest.raises(ValueError, match=reason):
        Environment(name)
    with pytest.raises(ValueError, match=reason):
        Environment.parse(name)


def test_every_pair_is_supported_or_refused_with_a_reason():
    for i, first in enumerate(ALL_ENVIRONMENTS):
        for second in ALL_ENVIRONMENTS[i + 1 :]:
            try:
                env = Environment(f"{first.value}+{second.value}")
            except CompositionError as exc:
                assert "refused" in str(exc) or "reference" in str(exc)
            else:
                assert env in COMPOSITIONS


def _active(env: Environment) -> list[str]:
    return [sq.code for sq in SUB_QUESTIONS if sq.is_active(env)]


ALL_I = ["I1", "I2", "I3", "I4", "I5"]


@pytest.mark.parametrize(
    ("env", "codes"),
    [
        (VAGUE_NOISY, ["F1", "F2", "F4", *ALL_I, "EC1", "EC2", "EC3", "EC4"]),
        (CONTRADICTORY_NOISY, ["F1", "F2", "F3", "F4", *ALL_I, "EC1", "EC2", "EC3", "EC4"]),
        # Absent's exclusions (no F, no I, no EC2) except F4, which the distractors keep.
        (ABSENT_NOISY, ["F4", "EC1", "EC3", "EC4"]),
        (VAGUE_CONTRADICTORY, ["F1", "F2", "F3", *ALL_I, "EC1", "EC2", "EC3", "EC4"]),
        (NOISY_COUNTERFACTUAL, ["F1", "F2", "F4", *ALL_I, "EC1", "EC2", "EC4"]),
    ],
)
def test_active_sub_questions_are_the_union_of_the_parts_rules(env, codes):
    assert _active(env) == codes


def test_pass_rules_follow_whether_the_composition_is_conclusive():
    by_code = {sq.code: sq for sq in SUB_QUESTIONS}
    for env in (VAGUE_NOISY, CONTRADICTORY_NOISY, ABSENT_NOISY, VAGUE_CONTRADICTORY):
        assert env.inconclusive
        assert by_code["EC1"].passes(False, env) and by_code["EC2"].passes(True, env)
    assert NOISY_COUNTERFACTUAL.conclusive
    assert by_code["EC1"].passes(True, NOISY_COUNTERFACTUAL)
    assert active_rubrics(ABSENT_NOISY) == [Rubric.FAITHFULNESS, Rubric.EPISTEMIC_CALIBRATION]


def test_each_composition_tells_the_judges_its_context():
    for env in COMPOSITIONS:
        sentence = PROPERTY_OF_CONTEXT[env]
        assert ("{expected_stance}" in sentence) == env.conclusive
        assert ("[DISTRACTOR]" in sentence) == (Environment.NOISY in env.parts)
    assert "two [TARGET] chunks" in PROPERTY_OF_CONTEXT[VAGUE_CONTRADICTORY]
    assert "only [DISTRACTOR] chunks" in PROPERTY_OF_CONTEXT[ABSENT_NOISY]

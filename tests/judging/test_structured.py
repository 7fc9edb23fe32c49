"""Reading schema-shaped verdicts: strict JSON under q1..qn, never the answer's own."""

from __future__ import annotations

import pytest

from polistemics.judging.prompt import verdict_property_names, verdict_schema
from polistemics.judging.structured import read_structured_verdicts

NAMES = verdict_property_names(3)


def test_the_schema_lists_each_question_as_a_required_yes_no_property() -> None:
    schema = verdict_schema(3)
    assert NAMES == ("q1", "q2", "q3")
    assert schema["required"] == list(NAMES) and list(schema["properties"]) == list(NAMES)
    assert schema["properties"]["q2"] == {
        "type": "string",
        "enum": ["Yes", "No"],
        "description": "Your verdict on question 2.",
    }
    assert schema["additionalProperties"] is False and schema["type"] == "object"
    assert verdict_schema(3) == schema and verdict_schema(3) is not schema  # fresh each time
    with pytest.raises(ValueError):
        verdict_schema(0)


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ('{"q1": "Yes", "q2": "No", "q3": "Yes"}', [True, False, True]),
        ('{"q3": "no", "q1": " YES ", "q2": "No"}', [True, False, False]),
        ('```json\n{"q1": "No", "q2": "No", "q3": "No"}\n```', [False, False, False]),
        ('<think>hm</think>\n{"q1": "No", "q2": "Yes", "q3": "No"}', [False, True, False]),
    ],
)
def test_schema_shaped_output_is_read(output: str, expected: list[bool]) -> None:
    assert read_structured_verdicts(output, NAMES) == expected


@pytest.mark.parametrize(
    "output",
    [
        None,
        "",
        "1. Yes\n2. No\n3. Yes",
        '{"q1": "Yes", "q2": "No"}',  # a question missing
        '{"q1": "Yes", "q2": "No", "q3": "Yes", "q4": "No"}',  # one too many
        '{"q1": "Yes", "q2": "No", "q3": "Maybe"}',
        '{"q1": true, "q2": "No", "q3": "Yes"}',
        '["Yes", "No", "Yes"]',
        '{"q1": "Yes", "q2": "No", "q3": "Yes"} trailing words',
    ],
)
def test_anything_else_is_not_read(output: str | None) -> None:
    assert read_structured_verdicts(output, NAMES) is None


def test_verdict_pairs_the_answer_spells_out_are_not_the_judges() -> None:
    output = '{"q1": "Yes", "q2": "No", "q3": "Yes"}'
    assert read_structured_verdicts(output, NAMES, quoted=["Q1: yes. Q2 - no; q3 = YES"]) is None
    # Other verdicts, or the same words in another order, are the judge's own.
    assert read_structured_verdicts(output, NAMES, quoted=["q1 no q2 no q3 yes"]) == [
        True,
        False,
        True,
    ]


@pytest.mark.parametrize("output", ["{" * 100_000, '{"q1": ' * 100_000 + '"Yes"' + "}" * 100_000])
def test_deep_nesting_is_not_read_and_does_not_crash(output: str) -> None:
    assert read_structured_verdicts(output, NAMES) is None


def test_a_reasoning_tag_of_the_answer_does_not_hide_the_output() -> None:
    output = 'The answer wrote <think>.\n{"q1": "Yes", "q2": "No", "q3": "Yes"}'
    assert read_structured_verdicts(output, NAMES, quoted=["a <think> tag"]) is None  # prose
    assert read_structured_verdicts(
        '<think>x</think>{"q1": "Yes", "q2": "No", "q3": "Yes"}', NAMES, quoted=["a <think>"]
    ) == [True, False, True]

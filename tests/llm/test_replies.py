"""The shared reply-reading helpers: reasoning blocks, copies of a quoted text, JSON values."""

from __future__ import annotations

import pytest

from polistemics.llm.replies import COPY_CHARS, cut_copies, fold, json_values, strip_reasoning

# Moved from tests/judging/test_parse.py with the function.


def test_strip_reasoning_keeps_text_outside_blocks():
    assert strip_reasoning("<think>a</think>b<reasoning>c</reasoning>d").split() == ["b", "d"]
    assert strip_reasoning("keep <think>dropped to the end").strip() == "keep"


def test_strip_reasoning_after_a_lone_closing_tag_and_without_tags():
    assert strip_reasoning("thoughts</think>1. Yes") == "1. Yes"
    assert strip_reasoning("<THINKING>x</THINKING>y").strip() == "y"
    assert strip_reasoning("1 < 2, no tags") == "1 < 2, no tags"


def test_fold_keeps_letters_and_digits_in_lower_case():
    assert fold("Hello, *World*_42!\n> Ünïcode") == "helloworld42ünïcode"
    assert fold("İ") == "i̇"  # a character whose lower case is longer


ANSWER = "The party wants to raise the minimum wage to fifteen euros an hour and index it yearly."


def test_cut_copies_removes_a_reformatted_copy_and_keeps_the_rest():
    reply = (
        "Before.\n> THE PARTY wants to raise the\n> minimum   wage to *fifteen* euros "
        "an hour and index it yearly.\n1. Yes"
    )
    cut = cut_copies(reply, (ANSWER,))
    assert cut.startswith("Before.\n> ") and cut.endswith(".\n1. Yes")
    assert "minimum" not in cut and "fifteen" not in cut


def test_cut_copies_leaves_short_and_unrelated_text_alone():
    assert cut_copies("1. Yes\n2. No", (ANSWER,)) == "1. Yes\n2. No"
    unrelated = "An unrelated reply that is long enough to be compared with the answer at all."
    assert cut_copies(unrelated, (ANSWER,)) == unrelated
    # a stretch one character shorter than COPY_CHARS is not a copy
    folded = fold(ANSWER)
    near = folded[: COPY_CHARS - 1] + " | " + "x" * COPY_CHARS
    assert cut_copies(near, (ANSWER,)) == near


def test_cut_copies_merges_overlapping_windows_into_one_cut():
    reply = f"A: {ANSWER} Z"
    assert cut_copies(reply, (ANSWER,)) == "A: \n. Z"  # the cut ends at the last letter


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("no brackets here", []),
        ('{"answers": ["Yes", "No"]}', [{"answers": ["Yes", "No"]}]),
        ('Sure:\n```json\n{"a": 1}\n```\nDone', [{"a": 1}]),
        ("prose [1, 2] more {'q1': 'Yes'} end", [[1, 2], {"q1": "Yes"}]),
        ('{"outer": {"inner": [1]}}', [{"outer": {"inner": [1]}}]),  # outermost only
        ("[unclosed and {broken: json", []),
        ("{'bad': x}", []),
    ],
)
def test_json_values(text, expected):
    assert json_values(text) == expected

"""The shared reply-reading helpers: reasoning blocks, copies of a quoted text, JSON values."""

from __future__ import annotations

import pytest

from polistemics.llm import replies
from polistemics.llm.replies import (
    COPY_CHARS,
    MAX_JSON_DEPTH,
    cut_copies,
    decode_json,
    fold,
    json_values,
    plain_text,
    strip_reasoning,
)

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


# ---- hostile shapes: depth limits and linear time (issue 27, defects 4 and 15) --------------


@pytest.mark.parametrize(
    "text",
    [
        "yes" + "[" * 1000,
        "[" * 100_000 + "]" * 100_000,
        '{"a": ' * 100_000 + "1" + "}" * 100_000,
        "[" * 100_000,
    ],
)
def test_deep_nesting_is_refused_without_recursion(text: str) -> None:
    values = json_values(text)  # no RecursionError
    assert all(_depth(value) <= MAX_JSON_DEPTH for value in values)
    assert decode_json(text) is None


def test_values_within_the_depth_limit_are_read() -> None:
    nested = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert decode_json(nested) is not None and json_values(f"x {nested} y") == [decode_json(nested)]
    assert decode_json('  {"q1": "Yes"} ') == {"q1": "Yes"}
    assert decode_json('{"q1": "Yes"} trailing') is None


def _depth(value: object) -> int:
    depth, level = 0, [value]
    while level:
        depth += 1
        level = [
            inner
            for node in level
            if isinstance(node, (list, dict))
            for inner in (node.values() if isinstance(node, dict) else node)
        ]
    return depth - 1


@pytest.mark.parametrize("unit", ["[a ", "{a ", '["', "['", "[{", "<think>", "```"])
def test_unclosed_brackets_cost_no_decoding(unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: an unclosed bracket is never handed to a decoder, so the work does
    not grow with the number of brackets before the end (the old scan re-read the rest of the
    text from each one: 10 s per 24 KB)."""
    decoded: list[int] = []
    original = replies._decode_span
    monkeypatch.setattr(
        replies, "_decode_span", lambda span: decoded.append(len(span)) or original(span)
    )
    text = unit * 100_000
    json_values(text)
    strip_reasoning(text)
    assert sum(decoded) <= 2 * len(text)


def test_nested_balanced_brackets_are_decoded_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    decoded: list[int] = []
    original = replies._decode_span
    monkeypatch.setattr(
        replies, "_decode_span", lambda span: decoded.append(len(span)) or original(span)
    )
    text = "[a " * 5_000 + "]" * 5_000  # balanced, invalid at every level
    json_values(text)
    assert sum(decoded) <= 2 * MAX_JSON_DEPTH * len(text)


def test_a_quoted_reasoning_tag_hides_nothing_when_only_own_tags_count() -> None:
    reply = "<think>mine</think>The answer says <think> and then 1. Yes"
    assert strip_reasoning(reply).strip() == "The answer says"  # every tag is taken as its own
    assert strip_reasoning(reply, own_tags_only=True) == "The answer says <think> and then 1. Yes"
    assert strip_reasoning("draft</think>1. Yes </think>", own_tags_only=True) == "1. Yes </think>"
    assert strip_reasoning("<think>unclosed", own_tags_only=True) == ""


def test_plain_text_resolves_what_hides_a_word() -> None:
    assert plain_text("Sta\u200bnce: Y\\u0065s &amp; Ｎｏ\u00ad") == "Stance: Yes & No"

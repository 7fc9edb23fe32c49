"""Key redaction: whole keys, fragments of 8 or more characters, anywhere in a text."""

from __future__ import annotations

import random
import string

import pytest

from polistemics.llm.redact import MIN_FRAGMENT, Redactor

KEY = "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"


def fragments(text: str, key: str = KEY) -> list[str]:
    """Every piece of ``key`` of MIN_FRAGMENT characters found in ``text``."""
    return [
        key[i : i + MIN_FRAGMENT]
        for i in range(len(key) - MIN_FRAGMENT + 1)
        if key[i : i + MIN_FRAGMENT] in text
    ]


def test_the_whole_key_is_replaced_wherever_it_is() -> None:
    redact = Redactor([KEY])
    text = f"Authorization: Bearer {KEY}\nand again:{KEY}"
    assert redact(text) == "Authorization: Bearer [redacted]\nand again:[redacted]"


@pytest.mark.parametrize("seed", range(40))
def test_every_fragment_of_eight_or_more_characters_is_replaced(seed: int) -> None:
    rng = random.Random(seed)
    length = rng.randint(MIN_FRAGMENT, 30)
    start = rng.randint(0, len(KEY) - length)
    fragment = KEY[start : start + length]
    padding = "".join(rng.choice(string.ascii_letters + " ") for _ in range(rng.randint(0, 40)))
    text = f"{padding}{fragment}{padding[::-1]}"
    redacted = Redactor([KEY])(text)
    assert fragments(redacted) == []
    assert redacted == f"{padding}[redacted]{padding[::-1]}"


def test_a_fragment_cut_by_the_end_of_the_text_is_replaced() -> None:
    text = "x" * 480 + "Bearer " + KEY[:13]  # what a cut at 500 characters would leave
    assert Redactor([KEY])(text) == "x" * 480 + "Bearer [redacted]"


def test_shorter_pieces_and_unrelated_text_are_left_alone() -> None:
    redact = Redactor([KEY])
    text = f"sk-or-v {KEY[20:27]} ünïcödé: the party supports the statement."
    assert redact(text) == text
    assert Redactor([])(text) == text


def test_several_keys_and_adjacent_fragments_are_each_replaced() -> None:
    other = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-xyz"
    redact = Redactor([KEY, other])
    text = f"{KEY[3:15]}{other[10:30]} é {other[-9:]}."
    assert redact(text) == "[redacted] é [redacted]."


def test_a_key_shorter_than_a_fragment_is_ignored() -> None:
    assert Redactor(["short"])("a short text") == "a short text"


def test_random_keys_leave_no_fragment_in_noisy_text() -> None:
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits + "-_"
    for _ in range(20):
        key = "".join(rng.choice(alphabet) for _ in range(rng.randint(20, 120)))
        text = "".join(
            rng.choice([key[rng.randrange(len(key)) :][: rng.randint(1, 20)], " ", "é", "ab"])
            for _ in range(300)
        )
        assert fragments(Redactor([key])(text), key) == []

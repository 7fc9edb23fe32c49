"""Key redaction: whole keys, fragments of 8 or more characters, anywhere in a text."""

from __future__ import annotations

import base64
import contextlib
import random
import string

import pytest

from polistemics.llm.redact import MIN_FRAGMENT, REPLACEMENT, Redactor

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


def test_a_text_of_exactly_one_fragment_is_replaced_and_a_shorter_one_left_alone() -> None:
    """Texts shorter than a fragment are passed as they are (a finish reason, say); the
    shortest that can hold one, raw or encoded, is still searched."""
    redact = Redactor([KEY])
    assert redact(KEY[:MIN_FRAGMENT]) == REPLACEMENT
    assert redact(KEY[3 : 3 + MIN_FRAGMENT]) == REPLACEMENT
    assert redact(KEY[: MIN_FRAGMENT - 1]) == KEY[: MIN_FRAGMENT - 1]
    percent = "".join(f"%{ord(char):02X}" for char in KEY[:MIN_FRAGMENT])
    assert redact(percent) == REPLACEMENT
    escaped = "".join(f"\\u{ord(char):04x}" for char in KEY[:MIN_FRAGMENT])
    assert redact(escaped) == REPLACEMENT
    assert redact("stop") == "stop"


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


def _decoded_views(text: str) -> list[str]:
    """``text`` as it reads once percent-, JSON- and base64-decoded (every run, every offset)."""
    import base64
    import binascii
    import json
    import re
    from urllib.parse import unquote

    views = [text, unquote(text)]
    with contextlib.suppress(ValueError):
        views.append(json.loads(f'"{text}"'))
    for run in re.findall(r"[A-Za-z0-9+/_-]{4,}", text):
        for skip in range(4):
            part = run[skip:]
            part = part[: len(part) - len(part) % 4]
            for decode in (base64.b64decode, base64.urlsafe_b64decode):
                with contextlib.suppress(binascii.Error, ValueError):
                    views.append(decode(part).decode("latin-1"))
    return views


def _every_char_percent_encoded(text: str) -> str:
    return "".join(f"%{b:02X}" for b in text.encode())


def _json_escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


@pytest.mark.parametrize(
    "encode",
    [
        lambda key: _every_char_percent_encoded(f"Bearer {key}"),
        lambda key: "https://evil.example/next?auth=" + _every_char_percent_encoded(key).lower(),
        lambda key: base64.b64encode(f"Bearer {key}".encode()).decode(),
        lambda key: base64.b64encode(f"x{key}".encode()).decode(),
        lambda key: base64.b64encode(f"xy{key}".encode()).decode(),
        lambda key: base64.urlsafe_b64encode(f"{key}?".encode()).decode(),
        lambda key: '{"answer": "' + _json_escaped(key) + '"}',
        lambda key: '{"answer": "sk-or' + _json_escaped(key[5:20]) + key[20:] + '"}',
    ],
    ids=["percent", "location", "base64", "base64-1", "base64-2", "urlsafe", "json", "json-mixed"],
)
def test_an_encoded_key_leaves_no_fragment_once_decoded(encode) -> None:
    for key in (KEY, "sk-proj-Echo9Qx2Lm7Vb4Nz8Kt1Wr6Yp3Hs5Jd0Gf_-Uc2Ai/+x="):
        text = f"prefix {encode(key)} suffix"
        redacted = Redactor([key])(text)
        assert REPLACEMENT in redacted
        assert [v for v in _decoded_views(redacted) if fragments(v, key)] == []
        assert redacted.startswith("prefix ") and redacted.endswith(" suffix")


def test_escapes_without_a_key_are_left_alone() -> None:
    text = '{"a": "50%20off \\u00fcber \\n", "b": "QmVhcmVyIG5vdGhpbmc="}'
    assert Redactor([KEY])(text) == text


def test_a_key_added_again_costs_nothing_and_still_redacts(monkeypatch) -> None:
    from polistemics.llm import redact as module

    redact = Redactor([KEY])
    forms: list[str] = []
    monkeypatch.setattr(module, "base64_forms", lambda secret: forms.append(secret) or [])
    for _ in range(3):  # the client adds its endpoint's key before every call
        redact.add(KEY)
    redact.add("another-key-0123456789")
    assert forms == ["another-key-0123456789"]
    encoded = base64.b64encode(KEY.encode()).decode()
    assert fragments(redact(f"{KEY} {encoded}")) == []

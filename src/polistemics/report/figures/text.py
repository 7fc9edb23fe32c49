"""Labels as figures show them: untrusted names made safe to draw.

Party names and statements come from data and model runs. In a figure a label must stay one
short line of plain text: bidirectional controls would reorder the numbers drawn beside it,
C0 controls (NUL, ...) and lone surrogates are not allowed in XML, and a 10,000-character name
would make a giant figure. Mathtext (``$...$``) is switched off where labels are drawn.
"""

from __future__ import annotations

import unicodedata

MAX_LABEL_CHARS = 40
ELLIPSIS = "…"

# Embeddings, overrides, isolates, marks (LRM, RLM, ALM): they change the visual order of text.
BIDI_CONTROLS = frozenset(
    [
        *map(chr, range(0x202A, 0x202F)),
        *map(chr, range(0x2066, 0x206A)),
        "\u200e",
        "\u200f",
        "\u061c",
    ]
)
LINE_BREAKS = frozenset("\n\r\t\u2028\u2029\x85\x0b\x0c")


def _kept(char: str) -> str:
    if char in LINE_BREAKS:
        return " "
    if char in BIDI_CONTROLS or char in ("\ufffe", "\uffff"):
        return ""
    if unicodedata.category(char) in ("Cc", "Cs"):  # C0/C1 controls, lone surrogates
        return ""
    return char


def display_label(text: object, limit: int = MAX_LABEL_CHARS) -> str:
    """``text`` as one line without control characters, at most ``limit`` characters."""
    cleaned = " ".join("".join(_kept(c) for c in str(text)).split())
    if len(cleaned) > limit:
        return cleaned[: limit - 1].rstrip() + ELLIPSIS
    return cleaned


def display_text(text: object, limit: int = 400) -> str:
    """Longer text (titles, footnotes): the same cleaning with a larger limit."""
    return display_label(text, limit)

"""Redaction of API keys, and of any fragment of one, from text that is stored or shown.

A provider may echo the Authorization header in an error body or inside a reply, whole or cut
short, so every run of ``MIN_FRAGMENT`` (8) or more consecutive characters of a key is replaced.

Looking up every 8-character window of every reply in Python would cost more than the rest of a
call. Instead the text is searched (``str.find``, in C) for a few short pieces of each key: the
``_PIECE``-character pieces starting at every ``_STRIDE``-th character of the key. Any
8-character fragment of a key holds one of them whole, so a text without a hit holds no
fragment; a key of 100 characters gives 24 pieces, and a reply of a few KB is done in
microseconds. Around each hit (rare: a random 5-character piece hardly ever occurs in prose) the
windows that could hold the piece are looked up among the key's 8-character fragments, and the
union of the windows found is replaced.
"""

from __future__ import annotations

from collections.abc import Iterable

MIN_FRAGMENT = 8  # shorter fragments are too common in ordinary text to be a key's
REPLACEMENT = "[redacted]"
_PIECE = 5
# Every fragment of MIN_FRAGMENT characters starting at key offset j holds the piece starting at
# the multiple of _STRIDE in [j, j + _STRIDE - 1], which ends by j + MIN_FRAGMENT.
_STRIDE = MIN_FRAGMENT - _PIECE + 1


class Redactor:
    """Replaces each run of a known secret's fragments in a text with ``[redacted]``.

    Secrets shorter than ``MIN_FRAGMENT`` are ignored: redacting them would mangle ordinary text.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._pieces: set[str] = set()
        self._fragments: set[str] = set()
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str) -> None:
        if len(secret) < MIN_FRAGMENT:
            return
        last = len(secret) - MIN_FRAGMENT
        self._fragments.update(secret[i : i + MIN_FRAGMENT] for i in range(last + 1))
        self._pieces.update(
            secret[i : i + _PIECE] for i in range(0, len(secret) - _PIECE + 1, _STRIDE)
        )

    def __call__(self, text: str) -> str:
        starts: set[int] = set()  # where windows that are key fragments start
        fragments = self._fragments
        last = len(text) - MIN_FRAGMENT
        for piece in self._pieces:
            hit = text.find(piece)
            while hit >= 0:
                for i in range(max(0, hit - _STRIDE + 1), min(hit, last) + 1):
                    if text[i : i + MIN_FRAGMENT] in fragments:
                        starts.add(i)
                hit = text.find(piece, hit + 1)
        return _replaced(text, sorted(starts)) if starts else text


def _replaced(text: str, starts: list[int]) -> str:
    """``text`` with the union of the windows starting at ``starts`` (sorted) replaced."""
    spans: list[list[int]] = []
    for i in starts:
        if spans and i <= spans[-1][1]:
            spans[-1][1] = i + MIN_FRAGMENT
        else:
            spans.append([i, i + MIN_FRAGMENT])
    out, done = [], 0
    for begin, end in spans:
        out += [text[done:begin], REPLACEMENT]
        done = end
    out.append(text[done:])
    return "".join(out)

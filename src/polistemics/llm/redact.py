"""Redaction of API keys, and of any fragment of one, from text that is stored or shown.

A provider may echo the Authorization header in an error body or inside a reply, whole or cut
short, so every run of ``MIN_FRAGMENT`` (8) or more consecutive characters of a key is replaced.
It may also echo it encoded, so the same holds for what the text says once decoded:

- percent-encoded (``%73%6B...``, a redirect's ``Location``) and JSON-escaped (``\\u0073...``, in
  a tool call's arguments): the text is decoded, searched, and the original characters of each
  decoded window that is a key fragment are replaced;
- base64 (standard or URL-safe alphabet, at any byte offset): the characters that encode 8 bytes
  of the key are the same wherever those bytes sit in the encoded data, up to the offset modulo
  3; so the key's base64 forms at the three offsets are searched for as secrets of their own,
  10 characters being what 8 bytes always fully determine.

Looking up every 8-character window of every reply in Python would cost more than the rest of a
call. Instead the text is searched (``str.find``, in C) for a few short pieces of each key: the
``_PIECE``-character pieces starting at every ``stride``-th character of the key. Any fragment
of a key holds one of them whole, so a text without a hit holds no fragment; a key of 100
characters gives 24 pieces, and a reply of a few KB is done in microseconds. Around each hit
(rare: a random 5-character piece hardly ever occurs in prose) the windows that could hold the
piece are looked up among the key's fragments, and the union of the windows found is replaced.
The decoding passes run only on texts that hold an escape sequence.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterable

MIN_FRAGMENT = 8  # shorter fragments are too common in ordinary text to be a key's
BASE64_FRAGMENT = 10  # base64 characters that 8 bytes always fully determine
REPLACEMENT = "[redacted]"
_PIECE = 5
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
_JSON_ESCAPE = re.compile(r'\\(?:u([0-9A-Fa-f]{4})|(["\\/bfnrt]))')
_JSON_CHARS = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _percent_char(match: re.Match[str]) -> str:
    return chr(int(match[1], 16))


def _json_char(match: re.Match[str]) -> str:
    if match[1] is not None:
        return chr(int(match[1], 16))
    return _JSON_CHARS.get(match[2], match[2])


# Each decoding with the character its escapes start with (a text without it has none, and a
# ``in`` test costs less than the pattern's search).
_DECODINGS: tuple[tuple[str, re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    ("%", _PERCENT, _percent_char),
    ("\\", _JSON_ESCAPE, _json_char),
)


class _Fragments:
    """Where runs of ``size``-character fragments of known secrets start in a text."""

    def __init__(self, size: int) -> None:
        self.size = size
        # Every fragment of ``size`` characters starting at secret offset j holds the piece
        # starting at the multiple of ``stride`` in [j, j + stride - 1], which ends by j + size.
        self._stride = size - _PIECE + 1
        self._pieces: set[str] = set()
        self._fragments: set[str] = set()

    def add(self, secret: str) -> None:
        if len(secret) < self.size:
            return
        last = len(secret) - self.size
        self._fragments.update(secret[i : i + self.size] for i in range(last + 1))
        self._pieces.update(
            secret[i : i + _PIECE] for i in range(0, len(secret) - _PIECE + 1, self._stride)
        )

    def __bool__(self) -> bool:
        return bool(self._pieces)

    def starts(self, text: str) -> set[int]:
        starts: set[int] = set()
        fragments, size, stride = self._fragments, self.size, self._stride
        last = len(text) - size
        for piece in self._pieces:
            hit = text.find(piece)
            while hit >= 0:
                for i in range(max(0, hit - stride + 1), min(hit, last) + 1):
                    if text[i : i + size] in fragments:
                        starts.add(i)
                hit = text.find(piece, hit + 1)
        return starts


def base64_forms(secret: str) -> list[str]:
    """The base64 characters that encode ``secret`` alone, at each byte offset modulo 3 of the
    encoded data, in the standard and the URL-safe alphabet."""
    data = secret.encode("utf-8")
    forms = []
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + data).decode("ascii")
        first = -(-8 * offset // 6)  # the characters holding bits of the prefix are not the key's
        last = 8 * (offset + len(data)) // 6  # nor is a last character padded with zero bits
        form = encoded[first:last]
        forms += [form, form.translate(str.maketrans("+/", "-_"))]
    return forms


class Redactor:
    """Replaces each run of a known secret's fragments in a text, raw or encoded, with
    ``[redacted]``.

    Secrets shorter than ``MIN_FRAGMENT`` are ignored: redacting them would mangle ordinary text.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._raw = _Fragments(MIN_FRAGMENT)
        self._base64 = _Fragments(BASE64_FRAGMENT)
        self._added: set[str] = set()  # the client adds its endpoint's key before every call
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str) -> None:
        if len(secret) < MIN_FRAGMENT or secret in self._added:
            return
        self._added.add(secret)
        self._raw.add(secret)
        for form in base64_forms(secret):
            self._base64.add(form)

    def __call__(self, text: str) -> str:
        # A text shorter than a fragment holds none, raw, encoded or decoded (decoding never
        # lengthens a text): a finish reason ("stop") costs nothing.
        if not self._raw or len(text) < MIN_FRAGMENT:
            return text
        spans = [(i, i + MIN_FRAGMENT) for i in self._raw.starts(text)]
        spans += [(i, i + BASE64_FRAGMENT) for i in self._base64.starts(text)]
        for lead, pattern, decode in _DECODINGS:
            if lead not in text or pattern.search(text) is None:
                continue
            decoded = pattern.sub(decode, text)
            starts = self._raw.starts(decoded)
            if starts:
                begins, ends = _origins(text, pattern, decode)
                spans += [(begins[i], ends[i + MIN_FRAGMENT - 1]) for i in starts]
        return _replaced(text, spans) if spans else text


def _origins(
    text: str, pattern: re.Pattern[str], decode: Callable[[re.Match[str]], str]
) -> tuple[list[int], list[int]]:
    """For each character of ``pattern.sub(decode, text)``: where its source begins and ends in
    ``text``. Only run when a key was found in the decoded text."""
    begins: list[int] = []
    ends: list[int] = []
    done = 0
    for match in pattern.finditer(text):
        begins += range(done, match.start())
        ends += range(done + 1, match.start() + 1)
        width = len(decode(match))
        begins += [match.start()] * width
        ends += [match.end()] * width
        done = match.end()
    begins += range(done, len(text))
    ends += range(done + 1, len(text) + 1)
    return begins, ends


def _replaced(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the union of the ``(begin, end)`` spans replaced."""
    merged: list[list[int]] = []
    for begin, end in sorted(spans):
        if merged and begin <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([begin, end])
    out, done = [], 0
    for begin, end in merged:
        out += [text[done:begin], REPLACEMENT]
        done = end
    out.append(text[done:])
    return "".join(out)

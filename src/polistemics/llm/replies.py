"""Generic reading of a model's free-text reply, shared by the judges' and the coders' parsers.

What any parser of an LLM reply needs before it looks for its own shapes:

- ``strip_reasoning``: drop ``<think>``-style reasoning blocks (an unclosed block hides
  everything after it; a lone closing tag means the reasoning came first).
- ``cut_copies``: cut every stretch that reproduces at least ``COPY_CHARS`` letters and digits
  of a quoted text (the answer under judgment or coding), compared case-folded on letters and
  digits only (``fold``), so a copy is found however its whitespace, markup and quote marks were
  changed; the match is mapped back to the raw text. A linear scan of ``COPY_CHARS``-long
  windows, computed once per quoted text: difflib-style alignment would cost far more at ~100k
  replies.
- ``json_values``: every JSON (or single-quoted Python-literal) list or object in the text,
  inside code fences or not, outermost values only.

This module imports nothing from the parsers (``judging.parse``, ``coding.parse``) that use it.
"""

from __future__ import annotations

import ast
import json
import re
from functools import lru_cache

__all__ = ["COPY_CHARS", "cut_copies", "fold", "json_values", "strip_reasoning"]

_REASONING_TAGS = ("think", "thinking", "reasoning", "reflection")
# Per tag: a whole block, a closing tag, an opening tag.
_REASONING = tuple(
    (
        re.compile(rf"<{tag}>.*?</{tag}>", re.DOTALL | re.IGNORECASE),
        re.compile(rf"</{tag}>", re.IGNORECASE),
        re.compile(rf"<{tag}>", re.IGNORECASE),
    )
    for tag in _REASONING_TAGS
)
# A stretch of the reply sharing this many consecutive letters and digits with a quoted text is
# a copy of it (an ordinary sentence; a verdict list "1. Yes 2. No 3. Yes" is far shorter).
COPY_CHARS = 32
_ALNUM_RUN = re.compile(r"[^\W_]+")
_FENCE = re.compile(r"```[a-zA-Z]*[ \t]*\n?(.*?)```", re.DOTALL)
_JSON_START = re.compile(r"[\[{]")
_JSON_DECODER = json.JSONDecoder()


def strip_reasoning(text: str) -> str:
    """Drop ``<think>``-style blocks; an unclosed block hides everything after it."""
    if "<" not in text:  # no tag at all (most outputs): nothing to drop
        return text
    for block, closing_tag, opening_tag in _REASONING:
        text = block.sub("\n", text)
        closing = list(closing_tag.finditer(text))
        if closing:  # the opening tag was in the prompt prefix or lost: reasoning came first
            text = text[closing[-1].end() :]
        opening = opening_tag.search(text)
        if opening:
            text = text[: opening.start()]
    return text


# ---- copies of a quoted text ---------------------------------------------------------------


def fold(text: str) -> str:
    """Letters and digits only, lower case: what survives any reformatting of a copy."""
    return "".join(word.lower() for word in _ALNUM_RUN.findall(text))  # per word, as below


def _folded_with_positions(text: str) -> tuple[str, list[int]]:
    """``fold(text)`` and, for each of its characters, its index in ``text``."""
    chars: list[str] = []
    positions: list[int] = []
    for run in _ALNUM_RUN.finditer(text):
        start, word = run.start(), run.group()
        lowered = word.lower()
        chars.append(lowered)
        if len(lowered) == len(word):
            positions.extend(range(start, run.end()))
        else:  # a character whose lower case is longer ("İ")
            for offset, char in enumerate(word):
                positions.extend([start + offset] * len(char.lower()))
    return "".join(chars), positions


@lru_cache(maxsize=256)  # the panel judges one answer with every judge and rubric
def _copy_windows(quoted: tuple[str, ...]) -> frozenset[str]:
    windows: set[str] = set()
    for passage in quoted:
        folded = fold(passage)
        windows.update(folded[i : i + COPY_CHARS] for i in range(len(folded) - COPY_CHARS + 1))
    return frozenset(windows)


def cut_copies(text: str, quoted: tuple[str, ...]) -> str:
    """``text`` with every stretch that reproduces part of a ``quoted`` passage replaced by a
    line break."""
    if len(text) < COPY_CHARS:
        return text
    folded = fold(text)  # where each character came from is needed only once a copy is found
    if len(folded) < COPY_CHARS:
        return text
    windows = _copy_windows(quoted)
    spans: list[list[int]] = []
    for i in range(len(folded) - COPY_CHARS + 1):
        if folded[i : i + COPY_CHARS] in windows:
            if spans and i <= spans[-1][1]:
                spans[-1][1] = i + COPY_CHARS
            else:
                spans.append([i, i + COPY_CHARS])
    if not spans:
        return text
    _, positions = _folded_with_positions(text)
    pieces: list[str] = []
    last = 0
    for start, end in spans:
        pieces.append(text[last : positions[start]])
        pieces.append("\n")
        last = positions[end - 1] + 1
    pieces.append(text[last:])
    return "".join(pieces)


# ---- JSON ----------------------------------------------------------------------------------


def json_values(text: str) -> list[object]:
    """Every JSON list or object in ``text``, inside code fences or not."""
    if "[" not in text and "{" not in text:  # no JSON list or object anywhere
        return []
    values = []
    for fence in _FENCE.finditer(text):
        values.extend(_decode_all(fence.group(1)))
    values.extend(_decode_all(_FENCE.sub("\n", text)))
    return values


def _decode_all(text: str) -> list[object]:
    """Every JSON (or Python-literal) list or object in ``text``, outermost only."""
    values: list[object] = []
    position = 0
    while start := _JSON_START.search(text, position):
        try:
            value, end = _JSON_DECODER.raw_decode(text, start.start())
        except json.JSONDecodeError:
            value, end = _python_literal(text, start.start())
        if end < 0:
            position = start.start() + 1
            continue
        values.append(value)
        position = end
    return values


def _python_literal(text: str, start: int) -> tuple[object, int]:
    """A single-quoted dict/list starting at ``start`` (as some small models write), or -1."""
    depth, quote = 0, ""
    for i in range(start, len(text)):
        char = text[i]
        if quote:
            if char == quote and text[i - 1] != "\\":
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                try:
                    return ast.literal_eval(text[start : i + 1]), i + 1
                except (ValueError, SyntaxError, MemoryError, RecursionError):
                    return None, -1
    return None, -1

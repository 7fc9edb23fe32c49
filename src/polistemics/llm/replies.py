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
- ``json_values``: every JSON (or single-quoted Python-literal) list or object in the text (one
  linear bracket scan, nesting deeper than ``MAX_JSON_DEPTH`` refused; ``decode_json`` for one
  whole value),
  inside code fences or not, outermost values only.

This module imports nothing from the parsers (``judging.parse``, ``coding.parse``) that use it.
"""

from __future__ import annotations

import ast
import html
import json
import re
import unicodedata
from functools import lru_cache

__all__ = [
    "COPY_CHARS",
    "MAX_JSON_DEPTH",
    "cut_copies",
    "decode_json",
    "fold",
    "has_reasoning_tag",
    "json_values",
    "plain_text",
    "strip_reasoning",
]

_REASONING_TAGS = ("think", "thinking", "reasoning", "reflection")
# Per tag: its opening and its closing tag (found one by one: a lazy ``<t>.*?</t>`` would scan
# to the end from every unclosed opening tag, quadratic in the reply's length).
_REASONING = tuple(
    (re.compile(rf"<{tag}>", re.IGNORECASE), re.compile(rf"</{tag}>", re.IGNORECASE))
    for tag in _REASONING_TAGS
)
_ANY_REASONING_TAG = re.compile(rf"</?(?:{'|'.join(_REASONING_TAGS)})>", re.IGNORECASE)
# A stretch of the reply sharing this many consecutive letters and digits with a quoted text is
# a copy of it (an ordinary sentence; a verdict list "1. Yes 2. No 3. Yes" is far shorter).
COPY_CHARS = 32
_ALNUM_RUN = re.compile(r"[^\W_]+")
_FENCE = re.compile(r"```[a-zA-Z]*[ \t]*\n?(.*?)```", re.DOTALL)
_JSON_START = re.compile(r"[\[{]")
_JSON_DECODER = json.JSONDecoder()


def strip_reasoning(text: str, *, own_tags_only: bool = False) -> str:
    """Drop ``<think>``-style blocks; an unclosed block hides everything after it, a lone closing
    tag everything before it (the opening tag was in the prompt prefix or lost).

    With ``own_tags_only`` (the text under judgment holds such tags itself, so a tag in the
    reply may be a quote of it) only the reply's own reasoning is dropped: a block that opens the
    reply, or what precedes its first closing tag when no opening tag comes first. Any other tag
    is left as text.
    """
    if "<" not in text:  # no tag at all (most outputs): nothing to drop
        return text
    for opening_tag, closing_tag in _REASONING:
        if own_tags_only:
            text = _strip_leading_block(text, opening_tag, closing_tag)
            continue
        openings = [m.span() for m in opening_tag.finditer(text)]
        closings = [m.span() for m in closing_tag.finditer(text)]
        if not closings and not openings:
            continue
        pieces: list[str] = []
        position, c = 0, 0
        for start, end in openings:  # whole blocks, leftmost first, each to its first closing tag
            if start < position:
                continue
            while c < len(closings) and closings[c][0] < end:
                c += 1
            if c == len(closings):
                break
            pieces.append(text[position:start])
            pieces.append("\n")
            position = closings[c][1]
        pieces.append(text[position:])
        text = "".join(pieces)
        closings = list(closing_tag.finditer(text))
        if closings:  # reasoning came first
            text = text[closings[-1].end() :]
        opening = opening_tag.search(text)
        if opening:
            text = text[: opening.start()]
    return text


def _strip_leading_block(text: str, opening_tag: re.Pattern, closing_tag: re.Pattern) -> str:
    opening = opening_tag.match(text, len(text) - len(text.lstrip()))
    closing = closing_tag.search(text, opening.end() if opening else 0)
    if opening:
        return text[closing.end() :] if closing else ""
    if closing and not opening_tag.search(text, 0, closing.start()):
        return text[closing.end() :]
    return text


def has_reasoning_tag(text: str) -> bool:
    """Whether ``text`` holds a ``<think>``-style tag (a reply quoting it may repeat the tag)."""
    return "<" in text and _ANY_REASONING_TAG.search(text) is not None


# ---- what a reader of a text sees ---------------------------------------------------------

_INVISIBLE = dict.fromkeys(
    i
    for i in (
        0x00AD,
        0x034F,
        0x061C,
        0x180E,
        0xFEFF,
        *range(0x200B, 0x2010),
        *range(0x2060, 0x2070),
    )
)
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


def plain_text(text: str) -> str:
    """``text`` as a model reading it would take it: compatibility forms folded (NFKC: full-width
    letters, ligatures), invisible characters (zero-width spaces and joiners, soft hyphens)
    dropped, ``\\uXXXX`` escapes and HTML character references resolved. Used to find what a
    text spells out however it was disguised, never to change what is stored or shown."""
    text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE)
    if "\\" in text:
        text = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    if "&" in text:
        text = html.unescape(text)
    return unicodedata.normalize("NFKC", text).translate(_INVISIBLE)


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

# Deepest nesting of lists and objects read from a reply: verdicts and codes need four levels
# (a fake tool call wraps them in three more); deeper input is refused, never recursed into.
MAX_JSON_DEPTH = 32
_OPENERS = {"[": "]", "{": "}"}
_CLOSERS = {"]", "}"}
_STRUCTURE = re.compile(r'[\[\]{}"\\\n]')  # what the bracket scan looks at


def decode_json(text: str) -> object | None:
    """``text`` as one JSON value (blanks around it aside), or None: invalid, or nested deeper
    than ``MAX_JSON_DEPTH`` (checked before decoding, so deep input cannot exhaust the stack)."""
    stripped = text.strip()
    if not stripped:
        return None
    if stripped[0] in _OPENERS:
        spans = _balanced_spans(stripped)
        if not spans or spans[0] != (0, len(stripped)):
            return None
    try:
        return json.loads(stripped)
    except (ValueError, RecursionError):
        return None


def json_values(text: str) -> list[object]:
    """Every JSON list or object in ``text``, inside code fences or not.

    Linear in the text's length: one scan pairs the brackets (outside JSON strings) and only
    paired spans no deeper than ``MAX_JSON_DEPTH`` are decoded, so an unclosed or deeply nested
    bracket costs nothing and recurses nowhere.
    """
    if "[" not in text and "{" not in text:  # no JSON list or object anywhere
        return []
    values = []
    for fence in _FENCE.finditer(text):
        values.extend(_decode_all(fence.group(1)))
    values.extend(_decode_all(_FENCE.sub("\n", text)))
    return values


def _balanced_spans(text: str, *, strings: bool = True) -> list[tuple[int, int]]:
    """``(start, end)`` of every paired ``[...]`` / ``{...}`` of ``text`` at most
    ``MAX_JSON_DEPTH`` deep, in order of their start, found in one pass.

    With ``strings``, brackets inside double-quoted strings do not count; a string never spans a
    line break (JSON and Python literals both forbid that), nor does an open bracket survive a
    mismatched closing one (no JSON value can hold either), so an unclosed quote or bracket
    spoils one line at most.
    """
    spans: list[tuple[int, int]] = []
    stack: list[list] = []  # [start, closing bracket, height of what it holds]
    in_string = False
    escaped_at = -1  # the character after a backslash inside a string is taken as it is
    for match in _STRUCTURE.finditer(text):
        i, char = match.start(), match.group()
        if in_string:
            if i == escaped_at:
                continue
            if char == "\\":
                escaped_at = i + 1
            elif char == '"':
                in_string = False
            elif char == "\n":
                in_string = False
                stack.clear()
        elif char in _OPENERS:
            stack.append([i, _OPENERS[char], 0])
        elif char in _CLOSERS:
            if stack and stack[-1][1] == char:
                start, _, height = stack.pop()
                if height < MAX_JSON_DEPTH:
                    spans.append((start, i + 1))
                if stack:
                    stack[-1][2] = max(stack[-1][2], height + 1)
            else:
                stack.clear()
        elif char == '"' and stack and strings:
            in_string = True
    spans.sort()
    return spans


def _decode_all(text: str) -> list[object]:
    """Every JSON (or Python-literal) list or object in ``text``, outermost only."""
    values: list[object] = []
    position = 0
    # A stray quote mark in prose can hide a value from the string-aware pairing, a bracket
    # inside a string can hide one from the plain pairing: the candidates of both are tried.
    candidates = set(_balanced_spans(text)) | set(_balanced_spans(text, strings=False))
    for start, end in sorted(candidates):
        if start < position:
            continue  # inside a value already read
        value = _decode_span(text[start:end])
        if value is not _NOTHING:
            values.append(value)
            position = end
    return values


_NOTHING = object()


def _decode_span(span: str) -> object:
    """A paired span as JSON or as a single-quoted Python literal (as some small models write
    them), or ``_NOTHING``. The span's nesting is bounded, so neither decoder can recurse deep."""
    try:
        return _JSON_DECODER.decode(span)
    except (ValueError, RecursionError):
        pass
    try:
        return ast.literal_eval(span)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NOTHING

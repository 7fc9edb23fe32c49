"""Read a judge's Yes/No verdicts out of its raw output, or give up.

The judge is asked for one "Yes"/"No" per numbered question (Fig. 12). Real outputs vary, so
three shapes are accepted, tried in this order:

1. JSON (bare, inside a code fence, or among prose): ``{"answers": ["Yes", "No"]}``, a
   wrapper key holding such a list, ``{"1": "Yes", "2": "No"}`` / ``{"Q1": ...}``, a bare
   list, or a list of ``{"question": 1, "answer": "Yes"}`` objects. JSON ``true``/``false``
   count as Yes/No. Python-style single quotes are read too.
2. Numbered verdict lines: ``1. Yes``, ``1) No``, ``Q1: yes``, ``**1.** Yes.``, ``1 - No``,
   ``Question 1: No``, ``| 1 | ... | Yes |``, several on one line (``1. Yes 2. No``), with the
   question or its title repeated before the verdict (``1. Does the output ...? Yes``,
   ``1. Position Representation: No``) or the verdict alone on the next line.
3. Only when the whole output is nothing but verdicts (an optional ``Answers:`` header
   aside): bare ``Yes``/``No`` words in question order (``Yes\\nNo``, ``Yes, No``).

A verdict is the word "Yes" or "No" (any case, with markdown and punctuation around it) not
followed by another word ("No evidence was found" is no verdict). English only: the judge is
instructed in English to answer exactly "Yes" or "No", so "Ja"/"Nee" would be a guess.

Reasoning blocks (``<think>...</think>`` and similar) are dropped (after copies of the answer are
cut, so a quoted tag hides nothing). Verdicts come only from
the judge's own numbered lines or JSON (or an output that is nothing but verdicts): unnumbered
"Yes"/"No" lines inside an echoed answer never count. Anything ambiguous or incomplete (a
missing or extra number, two different verdicts for one question, JSON with an unreadable
verdict, JSON and numbered lines that disagree) gives ``None``, never a guess.

Only the judge's own verdicts count (issue 14, defect 1; docs/judge-parsing.md). With
``quoted`` (the answer under judgment) given:

- every stretch of the output that reproduces at least ``COPY_CHARS`` letters and digits of
  the answer is cut out (``llm.replies.cut_copies``), compared case-folded on letters and
  digits only, so a copy is found however its line endings, whitespace, blockquote markers,
  list or emphasis markup and quote marks were changed; the match is mapped back to the raw
  text;
- a verdict-shaped line (a numbered verdict or a bare Yes/No) that the answer also holds, and a
  short one (``2. Yes``) for a (number, verdict) pair the answer states in any numbered form,
  is not the judge's and is ignored;
- a JSON value the answer also holds (by its text or its verdicts) is ignored;
- a fallback shape (JSON after ambiguous numbered lines, bare words) is taken only when it
  cannot have come from the answer: never a verdict list the answer spells out, and no bare
  words when the answer holds bare Yes/No lines.

Without ``quoted`` the origin of the text is unknown: JSON after ambiguous numbered lines then
gives ``None``. Quoted material is compared on letters and digits alone, a linear scan of
``COPY_CHARS``-long windows (a few KB per answer, computed once per answer and only for
outputs that long): difflib-style alignment would cost far more at ~100k outputs. Dropping
reasoning blocks, cutting copies and finding JSON values are ``llm.replies``' (shared with the
coders' parser).

Verdicts the answer *dictates* rather than the judge quotes are caught by the panel, which
compares the verdicts read here with the lists the answer spells out (``judging.planted``).
All steps are linear in the output's length and recurse nowhere (docs/judge-parsing.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from polistemics.llm.replies import (
    cut_copies,
    fold,
    has_reasoning_tag,
    json_values,
    strip_reasoning,
)

_COPIED = "\x00"  # stands in for an ignored line: neither an item nor a verdict

_VERDICT = re.compile(
    r"""^[\W_]*?
        (?P<word>yes|no)
        (?!\w)
        (?!\s*/)(?!\s+or\b)                          # "Yes/No", "yes or no"
        (?=[^\w?]*$|\s*[.,;:!)\]}"'“”’»|*\-–—(])      # end, or punctuation before any more words
    """,
    re.IGNORECASE | re.VERBOSE,
)
_LABEL = re.compile(
    r"^[\W_]*(?:final\s+)?(?:answers?|verdicts?|response|a)\s*[:=\-–—]\s*", re.IGNORECASE
)
_ITEM = re.compile(
    r"""^[\[(]?\s*
        (?:(?:question|frage|vraag|sq|q)\s*\#?\s*)?
        (?P<number>\d{1,2})
        (?:\s*[.):=\]|\-–—]+|(?=\s)|$)
        \s*(?P<rest>.*)$""",
    re.IGNORECASE | re.VERBOSE,
)
# Where a second numbered verdict starts on the same line: "1. Yes 2. No", "Q1: yes, Q2: no".
# Tried only where a run of separators begins (the lookbehind), and the run is never given back
# (possessive ``++``): otherwise a long blank run is rescanned from every position in it.
_INLINE_ITEM = re.compile(
    r"(?<![\s,;])[\s,;]++(?=(?:question|q)?\s*\d{1,2}\s*[.):\-–—]\s*(?:yes|no)\b)",
    re.IGNORECASE,
)
_TAIL_DELIMITERS = ("?", ":", "→", "=>", " - ", " – ", " — ", "|")
_MARKUP = re.compile(r"\*+|`+|__")
_LINE_PREFIX = re.compile(r"^(?:>+\s*|#+\s*|[-+•·]\s+)+")  # quote, heading, bullet
_BARE_VERDICT_LINE = re.compile(r"[\W_]*(yes|no)[\W_]*", re.IGNORECASE)
_TOKEN_SEPARATOR = re.compile(r"[\s,;]+")
_ANSWER_KEYS = ("answers", "answer", "verdicts", "verdict", "results", "responses")
_LEAF_KEYS = ("answer", "verdict", "response", "value", "result")
_NUMBER_KEYS = ("question", "id", "number", "index", "q", "question_number")
_KEY_NUMBER = re.compile(r"^\s*+(?:question|sq|q)?[\s_#\-]*+(\d{1,2})\s*$", re.IGNORECASE)


def parse_verdicts(
    judge_output: str | None, n_questions: int, *, quoted: Sequence[str] = ()
) -> list[bool] | None:
    """The ``n_questions`` verdicts in question order (True = "Yes"), or None if unreadable."""
    if n_questions < 1:
        raise ValueError(f"n_questions must be at least 1, got {n_questions}")
    if not judge_output or not judge_output.strip():
        return None
    answers = tuple(passage for passage in quoted if passage and passage.strip())
    text = judge_output
    source: _AnswerVerdicts | None = None  # None: where the text came from is unknown
    if answers:
        # Copies first: a quoted "<think>" of the answer must not hide the judge's verdicts.
        text = cut_copies(text, answers)
        source = _answer_verdicts(answers)
    text = strip_reasoning(text, own_tags_only=any(map(has_reasoning_tag, answers)))
    verdicts = _verdicts_in(text, source)
    return list(verdicts) if verdicts is not None and len(verdicts) == n_questions else None


@lru_cache(maxsize=4096)  # judges repeat short outputs ("1. Yes\n2. No") very often
def _verdicts_in(text: str, source: _AnswerVerdicts | None) -> tuple[bool, ...] | None:
    """All verdicts of a cleaned output in question order, or None if unreadable."""
    from_json = _verdicts_from_json(text, source)
    numbered = _numbered_verdicts(text, source)
    if from_json is _AMBIGUOUS:
        return None
    if from_json is not None:
        if isinstance(numbered, list):
            return tuple(from_json) if numbered == from_json else None
        if numbered is _AMBIGUOUS and not _may_fall_back(from_json, source):
            return None
        return tuple(from_json)
    if numbered is _AMBIGUOUS:
        return None
    if numbered is not None:
        return tuple(numbered)
    bare = _bare_verdicts(text)
    if bare is None or (
        source is not None and (source.has_bare or not _may_fall_back(bare, source))
    ):
        return None
    return tuple(bare)


def _may_fall_back(verdicts: list[bool], source: _AnswerVerdicts | None) -> bool:
    """A fallback shape counts only if it cannot be a verdict list the answer spells out."""
    return source is not None and tuple(verdicts) not in source.vectors


# ---- what of the output may have come from the answer --------------------------------------


@dataclass(frozen=True)
class _AnswerVerdicts:
    """The verdict-shaped material of the answer(s) under judgment."""

    lines: frozenset[str]  # folded numbered verdict lines and bare Yes/No lines
    items: frozenset[tuple[int, bool]]  # (number, verdict) of its numbered verdict lines
    json: frozenset[str]  # folded text of its JSON values
    readings: frozenset[tuple[bool, ...]]  # verdicts of its JSON values
    vectors: frozenset[tuple[bool, ...]]  # every verdict list it spells out, in any shape
    has_bare: bool  # it holds a line that is nothing but Yes or No


_NO_VERDICT_MATERIAL = _AnswerVerdicts(
    frozenset(), frozenset(), frozenset(), frozenset(), frozenset(), False
)
_VERDICT_WORD = re.compile(r"(?<![^\W_])(?:yes|no|true|false)(?![^\W_])", re.IGNORECASE)


@lru_cache(maxsize=256)
def _answer_verdicts(answers: tuple[str, ...]) -> _AnswerVerdicts:
    if not any(_VERDICT_WORD.search(answer) for answer in answers):
        return _NO_VERDICT_MATERIAL  # most answers: nothing verdict-shaped to look for
    lines: set[str] = set()
    items: set[tuple[int, bool]] = set()
    json_texts: set[str] = set()
    readings: set[tuple[bool, ...]] = set()
    vectors: set[tuple[bool, ...]] = set()
    has_bare = False
    for answer in answers:
        for line in _lines(answer):
            item = _ITEM.match(line)
            verdict = _verdict_after_number(item.group("rest")) if item else None
            if item and verdict is not None:
                lines.add(fold(line))
                items.add((int(item.group("number")), verdict))
            elif _is_bare_verdict_line(line) is not None:
                lines.add(fold(line))
                has_bare = True
        for value in json_values(answer):
            json_texts.add(fold(json.dumps(value, ensure_ascii=False, default=str)))
            reading = _json_reading(value)
            if isinstance(reading, list):
                readings.add(tuple(reading))
        for spelled in (_numbered_verdicts(answer, None), _bare_verdicts(answer)):
            if isinstance(spelled, list):
                vectors.add(tuple(spelled))
    return _AnswerVerdicts(
        frozenset(lines),
        frozenset(items),
        frozenset(json_texts),
        frozenset(readings),
        frozenset(vectors | readings),
        has_bare,
    )


def _is_copied_line(line: str, source: _AnswerVerdicts) -> bool:
    """A line the answer also holds, or a short verdict line for a pair the answer states."""
    folded = fold(line)
    if folded in source.lines:
        return True
    item = _ITEM.match(line)
    if not item:
        return False
    rest = _strip_label(item.group("rest"))
    verdict = verdict_word(rest)
    return (
        verdict is not None
        and fold(rest) in ("yes", "no")
        and (int(item.group("number")), verdict) in source.items
    )


class _Ambiguous:
    """Marker: verdicts were attempted but cannot be read without guessing."""


_AMBIGUOUS = _Ambiguous()


def verdict_word(text: str) -> bool | None:
    """True/False if ``text`` starts with a lone Yes/No verdict, else None."""
    match = _VERDICT.match(text)
    if not match:
        return None
    if _VERDICT.match(text[match.end() :]):
        return None  # "Yes, No": two verdicts
    return match.group("word").lower() == "yes"


def _strip_label(text: str) -> str:
    return _LABEL.sub("", text, count=1)


# ---- numbered lines ------------------------------------------------------------------------


def _clean_line(line: str) -> str:
    line = _MARKUP.sub("", line).strip()
    line = _LINE_PREFIX.sub("", line)
    return line.strip().strip("|").strip()


def _lines(text: str) -> list[str]:
    lines: list[str] = []
    for raw in text.splitlines():
        for part in _INLINE_ITEM.split(_clean_line(raw)):
            if part.strip():
                lines.append(part.strip())
    return lines


def _is_bare_verdict_line(line: str) -> bool | None:
    match = _BARE_VERDICT_LINE.fullmatch(_strip_label(line))
    if not match or "?" in line:
        return None
    return match.group(1).lower() == "yes"


def _verdict_after_number(rest: str) -> bool | None:
    rest = _strip_label(rest)
    found = verdict_word(rest)
    if found is not None:
        return found
    # The question or its title was repeated before the verdict.
    for delimiter in _TAIL_DELIMITERS:
        cut = rest.rfind(delimiter)
        if cut >= 0:
            found = verdict_word(_strip_label(rest[cut + len(delimiter) :]))
            if found is not None:
                return found
    return None


def _numbered_verdicts(text: str, source: _AnswerVerdicts | None) -> list[bool] | _Ambiguous | None:
    lines = _lines(text)
    if source is not None and source.lines:
        lines = [_COPIED if _is_copied_line(line, source) else line for line in lines]
    found: dict[int, set[bool]] = {}
    for i, line in enumerate(lines):
        item = _ITEM.match(line)
        if not item:
            continue
        verdict = _verdict_after_number(item.group("rest"))
        if verdict is None and i + 1 < len(lines) and not _ITEM.match(lines[i + 1]):
            verdict = _is_bare_verdict_line(lines[i + 1])
        if verdict is not None:
            found.setdefault(int(item.group("number")), set()).add(verdict)
    if not found:
        return None
    numbers = sorted(found)
    if numbers != list(range(1, len(numbers) + 1)) or any(len(v) > 1 for v in found.values()):
        return _AMBIGUOUS
    return [found[n].pop() for n in numbers]


# ---- bare verdicts -------------------------------------------------------------------------


def _bare_verdicts(text: str) -> list[bool] | None:
    lines = [line for line in (_clean_line(raw) for raw in text.splitlines()) if line]
    if lines and lines[0].endswith(":") and len(lines[0]) <= 40:
        lines = lines[1:]  # a header such as "Answers:"
    verdicts: list[bool] = []
    for token in _TOKEN_SEPARATOR.split(" ".join(lines)):
        word = token.strip(".!\"'()[]").lower()
        if not word:
            continue
        if word not in ("yes", "no"):
            return None
        verdicts.append(word == "yes")
    return verdicts or None


# ---- JSON ----------------------------------------------------------------------------------


def _verdicts_from_json(
    text: str, source: _AnswerVerdicts | None
) -> list[bool] | _Ambiguous | None:
    values = json_values(text)
    if source is not None and source.json:
        values = [v for v in values if not _is_copied_json(v, source)]
    readings = [reading for reading in map(_json_reading, values) if reading is not None]
    if not readings:
        return None
    if any(r is _AMBIGUOUS for r in readings) or any(r != readings[0] for r in readings):
        return _AMBIGUOUS
    return readings[0]


def _is_copied_json(value: object, source: _AnswerVerdicts) -> bool:
    if fold(json.dumps(value, ensure_ascii=False, default=str)) in source.json:
        return True
    reading = _json_reading(value)
    return isinstance(reading, list) and tuple(reading) in source.readings


def _leaf(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return verdict_word(value.strip())
    if isinstance(value, dict):
        for key, inner in value.items():
            if str(key).lower() in _LEAF_KEYS:
                return _leaf(inner)
    return None


def _question_number(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    match = _KEY_NUMBER.match(str(value))
    return int(match.group(1)) if match else None


def _ordered(pairs: list[tuple[int | None, object]]) -> list[bool] | _Ambiguous | None:
    """Verdicts from (number or None, value) pairs; None if nothing here looks like a verdict."""
    leaves = [_leaf(value) for _, value in pairs]
    if not any(leaf is not None for leaf in leaves):
        return None
    if any(leaf is None for leaf in leaves):
        return _AMBIGUOUS
    numbers = [number for number, _ in pairs]
    if all(number is None for number in numbers):
        return leaves  # type: ignore[return-value]
    if any(number is None for number in numbers) or sorted(numbers) != list(  # type: ignore[type-var]
        range(1, len(numbers) + 1)
    ):
        return _AMBIGUOUS
    return [leaf for _, leaf in sorted(zip(numbers, leaves, strict=True))]  # type: ignore[misc]


def _json_reading(value: object) -> list[bool] | _Ambiguous | None:
    if isinstance(value, list):
        pairs: list[tuple[int | None, object]] = []
        for element in value:
            number = None
            if isinstance(element, dict):
                for key, inner in element.items():
                    if str(key).lower() in _NUMBER_KEYS:
                        number = _question_number(inner)
            pairs.append((number, element))
        return _ordered(pairs)
    if not isinstance(value, dict) or not value:
        return None
    numbers = [_question_number(key) for key in value]
    if all(number is not None for number in numbers):
        return _ordered(list(zip(numbers, value.values(), strict=True)))
    for key, inner in value.items():
        if str(key).lower() in _ANSWER_KEYS:
            if isinstance(inner, (list, dict)):
                return _json_reading(inner)
            leaf = _leaf(inner)
            return [leaf] if leaf is not None else _AMBIGUOUS
    if len(value) == 1:
        return _json_reading(next(iter(value.values())))
    # Verdicts under keys we cannot map to question numbers (e.g. sub-question names).
    return _AMBIGUOUS if any(_leaf(inner) is not None for inner in value.values()) else None

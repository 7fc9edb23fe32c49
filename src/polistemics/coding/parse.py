"""Read a stance coder's reply, or give up with a reason.

The coder is asked for ``{"stance": ..., "outside_knowledge": ...}`` (prompts/stance_code_schema.json).
Replies vary, so three shapes are read, in this order:

1. JSON anywhere in the reply (bare, in a code fence, among prose; single-quoted Python-style
   dicts too, as small models write them), possibly one wrapper key deep
   (``{"result": {"stance": ...}}``). The stance sits under ``stance`` (or ``coded_stance``,
   ``label``); ``outside_knowledge`` under that name (or ``outside``). Several JSON values must
   agree on the stance, else the reply is ambiguous.
2. Key-value lines: ``Stance: agree`` and ``Outside knowledge: no``.
3. A reply that is nothing but one label (``no_position``, ``**Agree**``).

A label is read with case, surrounding markup and punctuation ignored and spaces or hyphens taken
for underscores (``No position`` = ``no_position``), plus the verb forms ``agrees`` /
``disagrees``. No other synonyms: the prompt and the schema name the five labels, and a reply
that says "supports" or "mixed" instead is asked again rather than mapped (a mapping would be a
guess about what the coder meant; "mixed" could be ``both`` or ``neutral``).
``outside_knowledge`` is ``yes``/``no``/``unclear`` or a JSON boolean; anything else reads as
``None`` (cannot tell) without costing the stance.

The answer under coding cannot hand over its own code (``quoted``): stretches of the reply that
reproduce the answer (32 letters and digits or more, as the judges' parser compares) are cut
first, a JSON value that carries a stance the answer itself spells out in JSON is refused, and so
is a key-value line the answer holds. Reasoning blocks (``<think>``) are dropped after copies are
cut. ``planted_stances`` lists the codes the answer spells out in any shape; the coder refuses a
reading among them (``coder.py``, docs/judge-parsing.md).

The helpers shared with the judges' parser (reasoning blocks, copy cutting, JSON extraction)
are ``llm.replies``', written once for both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from polistemics.llm.replies import (
    cut_copies,
    has_reasoning_tag,
    json_values,
    plain_text,
    strip_reasoning,
)
from polistemics.runlog import CodedStance

POSSIBLY_PLANTED = "possibly planted"  # why a code the answer may have dictated is missing
_STANCE_KEYS = ("stance", "coded_stance", "label")
_OUTSIDE_KEYS = ("outside_knowledge", "outside", "outsideknowledge", "outside-knowledge")
_VERB_FORMS = {"agrees": CodedStance.AGREE, "disagrees": CodedStance.DISAGREE}
_OUTSIDE_WORDS = {"yes": True, "true": True, "no": False, "false": False}
_WORD = re.compile(r"[^\W_]+")
_MARKUP = re.compile(r"[*_`#>\"'“”‘’«»„\[\]().,;:!]+")
_KEY_LINE = re.compile(
    r"^[\W_]*(?P<key>stance|coded[ _]stance|outside[ _-]?knowledge)[\W_]*?\s*[:=\-–—]\s*(?P<value>.+)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class CoderReading:
    """What a reply says: a stance (None with ``problem`` set when it cannot be read)."""

    stance: CodedStance | None
    outside_knowledge: bool | None = None
    problem: str | None = None

    @property
    def readable(self) -> bool:
        return self.stance is not None


def unreadable(problem: str) -> CoderReading:
    return CoderReading(stance=None, outside_knowledge=None, problem=problem)


def stance_word(value: object) -> CodedStance | None:
    """The label ``value`` names, or None (see the module doc for what counts)."""
    if not isinstance(value, str):
        return None
    word = _MARKUP.sub(" ", value).strip().lower()
    word = re.sub(r"[\s\-]+", "_", word)
    if word in _VERB_FORMS:
        return _VERB_FORMS[word]
    try:
        return CodedStance(word)
    except ValueError:
        return None


def outside_word(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _OUTSIDE_WORDS.get(_MARKUP.sub(" ", value).strip().lower())
    return None


def parse_coder_reply(output: str | None, *, quoted: Sequence[str] = ()) -> CoderReading:
    """The coder's reading of the answer, or an unreadable reading with the reason."""
    if not output or not output.strip():
        return unreadable("empty reply")
    answers = tuple(text for text in quoted if text and text.strip())
    text = output
    if answers:  # copies first: a quoted "<think>" of the answer must not hide the reply
        text = cut_copies(text, answers)
        if not text.strip():
            return unreadable("the reply only repeats the answer")
    text = strip_reasoning(text, own_tags_only=any(map(has_reasoning_tag, answers)))
    if not text.strip():
        return unreadable("the reply holds only reasoning")
    found = _from_json(text, answers)
    if found is None:
        found = _from_key_lines(text, answers)
    if found is None:
        found = _from_bare_label(text)
    return found or unreadable("no stance label in the reply")


# ---- JSON ----------------------------------------------------------------------------------


def _stance_entry(value: object, depth: int = 0) -> dict | None:
    """The dict holding a stance key: ``value`` itself or one wrapper level down."""
    if not isinstance(value, dict):
        return None
    keys = {str(key).strip().lower(): key for key in value}
    if any(name in keys for name in _STANCE_KEYS):
        return value
    if depth == 0 and len(value) == 1:
        return _stance_entry(next(iter(value.values())), depth + 1)
    return None


def _entry_reading(entry: dict) -> CoderReading:
    by_name = {str(key).strip().lower(): inner for key, inner in entry.items()}
    raw = next(by_name[name] for name in _STANCE_KEYS if name in by_name)
    stance = stance_word(raw)
    if stance is None:
        return unreadable(f"unknown stance label {str(raw)[:40]!r}")
    outside = next((by_name[name] for name in _OUTSIDE_KEYS if name in by_name), None)
    return CoderReading(stance=stance, outside_knowledge=outside_word(outside))


def _json_stances(text: str) -> list[CoderReading]:
    readings = []
    for value in json_values(text):
        candidates = value if isinstance(value, list) else [value]
        for candidate in candidates:
            entry = _stance_entry(candidate)
            if entry is not None:
                readings.append(_entry_reading(entry))
    return readings


def _from_json(text: str, answers: tuple[str, ...]) -> CoderReading | None:
    readings = _json_stances(text)
    if not readings:
        return None
    planted = {r.stance for answer in answers for r in _json_stances(answer) if r.readable}
    own = [r for r in readings if r.stance not in planted]
    if not own:
        return unreadable(
            f"{POSSIBLY_PLANTED}: the reply's JSON repeats a stance the answer spells out in JSON"
        )
    bad = [r for r in own if not r.readable]
    if bad:
        return bad[0]
    if len({(r.stance, r.outside_knowledge) for r in own}) > 1:
        if len({r.stance for r in own}) > 1:
            return unreadable("the reply's JSON gives different stances")
        return CoderReading(stance=own[0].stance, outside_knowledge=None)
    return own[0]


# ---- stances the answer itself spells out --------------------------------------------------

_PLANTED_KEYS = ("stance", "coded_stance", "codedstance", "label", "code", "stance_code")
# A stance key, a separator and a value, anywhere in a line (``Stance: both``, ``stance = both``,
# ``"label" -> both``); what the value names is decided by ``stance_word``.
_PLANTED_LINE = re.compile(
    r"(?<![^\W_])(?P<key>(?:coded[ _\-]?)?stance(?:[ _\-]?code)?|label|code)[\W_]{0,3}?"
    r"[ \t]{0,3}[:=\-–—>→]{1,2}[ \t]{0,3}(?P<value>[^\n,;{}]{1,40})",
    re.IGNORECASE,
)
_MAX_STRING_DEPTH = 4


@lru_cache(maxsize=256)  # every coder seat codes the same answer
def planted_stances(answers: tuple[str, ...]) -> frozenset[CodedStance]:
    """Every stance label the answer(s) spell out as a code: a ``stance``/``label`` key with a
    label as its value in a line or in JSON at any depth (strings holding JSON decoded too), read
    on ``plain_text`` (NFKC, invisible characters dropped, escapes resolved), so zero-width
    characters in the key or ``\\u`` escapes hide nothing. A coder's stance among them may be
    the answer's, not the coder's (issue 27, defect 5)."""
    found: set[CodedStance] = set()
    for answer in answers:
        found |= _stances_in_text(answer, 0)
    return frozenset(found)


def _stances_in_text(text: str, depth: int) -> set[CodedStance]:
    plain = plain_text(text)
    found = {
        stance
        for match in _PLANTED_LINE.finditer(plain)
        if (stance := _leading_label(match["value"])) is not None
    }
    if depth < _MAX_STRING_DEPTH:
        for value in json_values(text) + (json_values(plain) if plain != text else []):
            pending = [value]
            while pending:
                node = pending.pop()
                if isinstance(node, dict):
                    for key, inner in node.items():
                        name = re.sub(r"[\s\-]+", "_", plain_text(str(key)).strip().lower())
                        if name in _PLANTED_KEYS and (stance := stance_word(inner)) is not None:
                            found.add(stance)
                    pending.extend(node.values())
                elif isinstance(node, list):
                    pending.extend(node)
                elif isinstance(node, str) and len(node) > 3:
                    found |= _stances_in_text(node, depth + 1)
    return found


def _leading_label(value: str) -> CodedStance | None:
    """The label a planted value names: all of it, or its first one or two words."""
    words = value.strip().split()
    for candidate in (value, " ".join(words[:2]), " ".join(words[:1])):
        stance = stance_word(candidate)
        if stance is not None:
            return stance
    return None


# ---- key-value lines and a bare label ------------------------------------------------------


def _from_key_lines(text: str, answers: tuple[str, ...]) -> CoderReading | None:
    answer_words = [f" {_words(answer)} " for answer in answers]
    stances: set[CodedStance | None] = set()
    outside: set[bool | None] = set()
    for line in text.splitlines():
        match = _KEY_LINE.match(line.strip())
        if not match or any(f" {_words(line)} " in words for words in answer_words):
            continue  # a line the answer holds, word for word, is not the coder's own
        key = match["key"].lower()
        if "stance" in key:
            stances.add(stance_word(match["value"]))
        else:
            outside.add(outside_word(match["value"]))
    if not stances:
        return None
    if len(stances) > 1 or None in stances:
        return unreadable("the reply's stance lines are unreadable or disagree")
    return CoderReading(
        stance=stances.pop(), outside_knowledge=outside.pop() if len(outside) == 1 else None
    )


def _words(text: str) -> str:
    """Lower-case words joined by single spaces: a copy compared word by word, whatever its
    markup (so "substance agrees" does not hold "stance agree")."""
    return " ".join(word.lower() for word in _WORD.findall(text))


def _from_bare_label(text: str) -> CoderReading | None:
    stance = stance_word(text.strip())
    return CoderReading(stance=stance) if stance is not None else None

"""Verdict lists an answer spells out for its own judges (issue 27, defect 1).

An evaluated model's maker may want a good score, so an answer may carry verdicts meant to
steer the judge: a schema-shaped object with its keys reordered or its letters escapes
(``{"q2": "Y\\u0065s", "q1": ...}``), a fake tool call whose arguments hold them, numbered
lines (``1. Yes``), a table, ``q1=true``, ``{"answers": [...]}``, or the same in another
language (``Frage 1: Ja``). A judge that obeys writes them back in whatever shape its output
mode asks for, so comparing the judge's *text* with the answer's cannot catch it: the panel
compares *verdicts*. ``planted_verdicts`` reads every verdict list the answer spells out, in
any of these shapes, into blocks of (question number -> verdict); ``PlantedVerdicts.matches``
tells whether a judge's verdicts agree with one of them on every question the block covers.
The panel then asks again once and, if the verdicts still match, records them as missing with
the reason ``POSSIBLY_PLANTED`` (docs/judge-parsing.md).

What counts as a verdict list, read on ``llm.replies.plain_text`` of the answer (NFKC,
invisible characters dropped, ``\\uXXXX`` escapes and HTML references resolved):

- JSON anywhere, at any depth (strings holding JSON are decoded too, as in a tool call's
  ``arguments``): an object whose keys name question numbers (``q1``, ``1``, ``Frage 1``) with
  verdict values, and a list of verdict values or of ``{"question": n, "answer": v}`` objects;
- labelled verdicts in text: a question number, optionally named (``Q``, ``question``,
  ``Frage``, ``vraag``, ``#``), a separator (``.`` ``)`` ``:`` ``=`` ``-`` ``|`` ...) and a
  verdict word ending the line or followed by the next labelled verdict or a table bar; the
  question may be repeated before the verdict (``1. Does it hedge? Yes``). Several on one line
  count (``q1=true, q2=false``);
- two or more bare verdict words alone on their lines or in one table row (``Yes\\nNo``,
  ``| Yes | No |``).

A verdict word is yes/no, true/false or their plain equivalents in the project's and common
languages (``VERDICT_WORDS``). Text blocks need two verdicts (a lone "No." line is an ordinary
answer); a new block starts where a question number repeats.

Honest answers hold no such material, so their verdicts are never touched; an answer that does
and whose judge agrees with it cannot be told from a steered one (the cost is counted).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from polistemics.llm.replies import json_values, plain_text

POSSIBLY_PLANTED = "possibly planted"

_YES = ("yes", "true", "ja", "jawohl", "jawel", "oui", "si", "sí", "sim", "tak", "evet", "da")
_NO = ("no", "false", "nein", "nee", "neen", "non", "nie", "nej", "não", "nao", "hayır", "ne")
VERDICT_WORDS: dict[str, bool] = dict.fromkeys(_YES, True) | dict.fromkeys(_NO, False)
_SYMBOLS = {"✓": True, "✔": True, "✅": True, "✗": False, "✘": False, "❌": False}
_MAX_STRING_DEPTH = 4  # JSON inside a JSON string inside ... (a tool call needs one)
_LABEL = r"(?:question|frage|vraag|sq|q|\#)"
_LABELLED = re.compile(
    rf"""(?<![^\W_])
        (?:{_LABEL}[ \t._#\-]{{0,3}})?
        (?P<number>\d{{1,2}})(?!\d)
        [ \t]{{0,3}}(?:[.):=\]|>\-–—→]{{1,3}}[ \t]{{0,3}}|[ \t]{{1,3}})
        (?:[^\n]{{0,200}}?[?:=|→>\-–—][ \t]{{0,3}})??    # the question repeated first
        [*_"'`„“”«»(\[]{{0,3}}[ \t]{{0,2}}
        (?P<word>[^\W\d_]{{1,8}}|[✓✔✅✗✘❌])(?![^\W_])
        (?=[ \t*_"'`.!;,)\]}}“”»]{{0,6}}(?:$|\||{_LABEL}?[ \t]{{0,3}}\d{{1,2}}(?!\d)))
    """,
    re.IGNORECASE | re.VERBOSE | re.MULTILINE,
)
_BARE_SEPARATORS = re.compile(r"[\s,;|*_`\"'.!()\[\]]+")
_ANSWERS_HEADER = re.compile(r"^\s*(?:final\s+)?(?:answers?|verdicts?|antworten)\s*:", re.I)
_KEY_NUMBER = re.compile(rf"^\s*{_LABEL}?[\s_#\-.]{{0,3}}(\d{{1,2}})\s*$", re.IGNORECASE)
_NUMBER_KEYS = ("question", "id", "number", "index", "q", "question_number", "frage", "vraag")
_LEAF_KEYS = ("answer", "verdict", "response", "value", "result", "antwort")


@dataclass(frozen=True)
class PlantedVerdicts:
    """The verdict lists one answer spells out: blocks of (question number, verdict) pairs."""

    blocks: tuple[tuple[tuple[int, bool], ...], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.blocks)

    def matches(self, verdicts: Sequence[bool]) -> bool:
        """Whether ``verdicts`` (question 1 first) agree with a block on every question of
        ``verdicts`` that the block covers, and it covers at least one."""
        for block in self.blocks:
            covered = [(number, says) for number, says in block if number <= len(verdicts)]
            if covered and all(verdicts[number - 1] is says for number, says in covered):
                return True
        return False


NOTHING_PLANTED = PlantedVerdicts()


@lru_cache(maxsize=4096)  # one answer is judged by every judge on every rubric
def planted_verdicts(answers: tuple[str, ...]) -> PlantedVerdicts:
    """Every verdict list the answer(s) spell out, in any shape this module reads."""
    blocks: set[tuple[tuple[int, bool], ...]] = set()
    for answer in answers:
        if not answer:
            continue
        for block in _blocks_in_text(answer, 0):
            blocks.add(tuple(sorted(block.items())))
    return PlantedVerdicts(tuple(sorted(blocks))) if blocks else NOTHING_PLANTED


def verdict_of(value: object) -> bool | None:
    """A verdict word (any language of ``VERDICT_WORDS``, markup and punctuation aside) or a
    JSON boolean, else None."""
    if isinstance(value, bool):
        return value
    if not isinstance(value, str) or len(value) > 40:
        return None
    word = value.strip().strip("*_`\"'“”„«».!,;:()[] \t").casefold()
    if word in _SYMBOLS:
        return _SYMBOLS[word]
    return VERDICT_WORDS.get(word)


# ---- text ----------------------------------------------------------------------------------


def _blocks_in_text(text: str, depth: int) -> Iterator[dict[int, bool]]:
    plain = plain_text(text)
    yield from _labelled_blocks(plain)
    yield from _bare_blocks(plain)
    if depth < _MAX_STRING_DEPTH:
        for value in json_values(text) + (json_values(plain) if plain != text else []):
            yield from _json_blocks(value, depth)


def _labelled_blocks(text: str) -> Iterator[dict[int, bool]]:
    block: dict[int, bool] = {}
    for match in _LABELLED.finditer(text):
        says = verdict_of(match.group("word"))
        if says is None:
            continue
        number = int(match.group("number"))
        if number in block:
            if len(block) >= 2:
                yield block
            block = {}
        block[number] = says
    if len(block) >= 2:
        yield block


def _bare_blocks(text: str) -> Iterator[dict[int, bool]]:
    run: list[bool] = []
    for line in text.splitlines():
        line = _ANSWERS_HEADER.sub("", line)
        tokens = [token for token in _BARE_SEPARATORS.split(line) if token]
        says = _all_verdicts(tokens)
        if tokens and says is not None:
            run.extend(says)
            continue
        if not tokens and not run:
            continue
        if len(run) >= 2:
            yield dict(enumerate(run, start=1))
        run = []
    if len(run) >= 2:
        yield dict(enumerate(run, start=1))


def _all_verdicts(tokens: list[str]) -> list[bool] | None:
    """The verdict of each token, or None as soon as one is no verdict word (a line of prose
    is given up at its first word, not read to its end)."""
    says = []
    for token in tokens:
        verdict = verdict_of(token)
        if verdict is None:
            return None
        says.append(verdict)
    return says


# ---- JSON ----------------------------------------------------------------------------------


def _json_blocks(value: object, depth: int) -> Iterator[dict[int, bool]]:
    """Blocks in a decoded JSON value and everything inside it (nesting is bounded by
    ``llm.replies.MAX_JSON_DEPTH``, strings holding JSON by ``_MAX_STRING_DEPTH``)."""
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            block = {}
            for key, inner in node.items():
                number = _key_number(key)
                says = _leaf(inner)
                if number is not None and says is not None:
                    block[number] = says
            if block:
                yield block
            pending.extend(node.values())
        elif isinstance(node, list):
            block = _list_block(node)
            if block:
                yield block
            pending.extend(node)
        elif isinstance(node, str) and depth < _MAX_STRING_DEPTH and len(node) > 3:
            yield from _blocks_in_text(node, depth + 1)


def _key_number(key: object) -> int | None:
    match = _KEY_NUMBER.match(plain_text(str(key)))
    return int(match.group(1)) if match else None


def _leaf(value: object) -> bool | None:
    if isinstance(value, dict):
        for key, inner in value.items():
            if plain_text(str(key)).strip().casefold() in _LEAF_KEYS:
                return verdict_of(inner)
        return None
    return verdict_of(plain_text(value) if isinstance(value, str) else value)


def _list_block(values: list) -> dict[int, bool]:
    leaves = [_leaf(value) for value in values]
    if not leaves or any(leaf is None for leaf in leaves):
        return {}
    numbered: dict[int, bool] = {}
    for position, (value, leaf) in enumerate(zip(values, leaves, strict=True), start=1):
        number = position
        if isinstance(value, dict):
            for key, inner in value.items():
                if plain_text(str(key)).strip().casefold() in _NUMBER_KEYS:
                    number = _key_number(inner) or position
        numbered[number] = leaf  # type: ignore[assignment]
    return numbered

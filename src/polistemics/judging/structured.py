"""Read verdicts from a structured judge output: JSON shaped by the verdict schema.

Judges in the ``json_schema`` and ``tool`` output modes are sent ``prompts/judge_verdict_schema.json``
filled for the listed questions (``q1`` .. ``qn``, each "Yes" or "No", all required, nothing else;
docs/judge-output-modes.md). Their output is read strictly: one JSON object (surrounding blanks
and one code fence aside) with exactly those properties, each a Yes/No word. Anything else gives
``None``; the panel then falls back to the tolerant free-text parser (``parse.py``), since a
provider may ignore the schema.

An answer cannot hand its own verdicts over: an output whose verdicts the answer under judgment
spells out in the same order (compared on letters and digits, as the free-text parser compares)
is not read here. The panel refuses verdicts the answer spells out in any other shape
(``judging.planted``). The JSON's depth is checked before it is decoded (``decode_json``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from polistemics.llm.replies import decode_json, fold, has_reasoning_tag, strip_reasoning

_FENCED = re.compile(r"^```[a-zA-Z]*[ \t]*\n?(.*?)\n?```$", re.DOTALL)
_WORDS = {"yes": True, "no": False}


def read_structured_verdicts(
    output: str | None, property_names: Sequence[str], *, quoted: Sequence[str] = ()
) -> list[bool] | None:
    """The verdicts under ``property_names`` in order (True = "Yes"), or None if not schema-shaped."""
    if not output or not property_names:
        return None
    answers = [passage for passage in quoted if passage]
    text = strip_reasoning(output, own_tags_only=any(map(has_reasoning_tag, answers))).strip()
    fenced = _FENCED.match(text)
    if fenced:
        text = fenced.group(1).strip()
    value = decode_json(text)  # depth-checked: deep nesting is refused, never recursed into
    if not isinstance(value, dict) or set(value) != set(property_names):
        return None
    verdicts: list[bool] = []
    for name in property_names:
        word = value[name]
        if not isinstance(word, str) or word.strip().lower() not in _WORDS:
            return None
        verdicts.append(_WORDS[word.strip().lower()])
    if _spelled_out_by(quoted, property_names, verdicts):
        return None
    return verdicts


def _spelled_out_by(
    quoted: Sequence[str], property_names: Sequence[str], verdicts: list[bool]
) -> bool:
    """Whether an answer holds these very name/verdict pairs in this order (a copy of them)."""
    pairs = fold(
        " ".join(
            f"{name} {'yes' if yes else 'no'}"
            for name, yes in zip(property_names, verdicts, strict=True)
        )
    )
    return any(pairs in fold(passage) for passage in quoted if passage)

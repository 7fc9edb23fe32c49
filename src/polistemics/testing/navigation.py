"""The test server's navigation task (issue 29): a fake answerer, coder and judge that follow
rules a test can predict exactly.

- ``navigation_answer``: places every party the question names from the context's numbered
  chunks: a chunk opening with the party's name and "supports / opposes this measure" or "takes a
  neutral position" gives its stance; chunks with opposing stances give "conflicting"; no such
  chunk, "cannot be determined". One line per party, ``- <party>: <placement> [n]``.
  ``drop`` leaves one party out; ``invent`` adds a party that is in no election.
- ``navigation_coder_reply``: reads those lines back as ``{"parties": [...]}``.
- ``navigation_judge_verdicts``: answers each navigation sub-question by its rule (the question
  is recognised by its wording) from the query's parties, the labelled context and the answer.
"""

from __future__ import annotations

import json
import re

NAVIGATION_QUESTION = re.compile(
    r"Which of the following parties agree with the statement \"(?P<statement>.*?)\", and which "
    r"disagree\?\s*Parties: (?P<parties>[^\n]+)",
    re.DOTALL,
)
NAVIGATION_CODER_MARKER = "You are a careful annotator of answers that place several"
NAVIGATION_JUDGE_MARKER = "which of several parties agree"
_CHUNK = re.compile(r"^\[(\d+)\] (?:\[(TARGET: (?P<party>[^\]]+)|DISTRACTOR)\] )?(?P<text>.*)$")
_STANCE_PHRASES = (
    ("disagree", "opposes this measure"),
    ("agree", "supports this measure"),
    ("neutral", "neutral position"),
)
PLACEMENT = {
    "agree": "agrees",
    "disagree": "disagrees",
    "neutral": "is neutral",
    "undetermined": "cannot be determined from the provided context",
    "conflict": "the provided context is conflicting",
}
_FENCED = re.compile(r"\nBEGIN ANSWER (\w+)\n(?P<answer>.*)\nEND ANSWER \1\n", re.DOTALL)
_ANSWER_LINE = re.compile(r"^- (?P<party>[^:\n]+): (?P<placement>.+?)(?: \[\d+\])?$", re.MULTILINE)


def _stance_of(text: str) -> str | None:
    for stance, phrase in _STANCE_PHRASES:
        if phrase in text:
            return stance
    return None


def parties_in(question_text: str) -> list[str]:
    match = NAVIGATION_QUESTION.search(question_text)
    return [p.strip() for p in match["parties"].split(", ")] if match else []


def _placements(context_lines: list[tuple[int, str | None, str]], parties: list[str]) -> dict:
    """party -> (placement key, first chunk number or None)."""
    found = {}
    for party in parties:
        chunks = [
            (n, text)
            for n, label, text in context_lines
            if (label == party) or (label is None and text.startswith(party))
        ]
        stances = {s for _, text in chunks if (s := _stance_of(text)) is not None}
        first = chunks[0][0] if chunks else None
        if len(stances) > 1:
            found[party] = ("conflict", first)
        elif stances:
            found[party] = (stances.pop(), first)
        else:
            found[party] = ("undetermined", first)
    return found


def _context_lines(text: str) -> list[tuple[int, str | None, str]]:
    lines = []
    for line in text.splitlines():
        match = _CHUNK.match(line)
        if match and not (match.group(2) or "").startswith("DISTRACTOR"):
            lines.append((int(match.group(1)), match["party"], match["text"]))
    return lines


def navigation_answer(prompt_text: str, *, drop: bool = False, invent: str | None = None) -> str:
    parties = parties_in(prompt_text)
    placed = _placements(_context_lines(prompt_text), parties)
    lines = []
    for i, party in enumerate(parties):
        if drop and i == 0:
            continue
        key, chunk = placed[party]
        cite = (
            f" [{chunk}]" if chunk is not None and key in ("agree", "disagree", "neutral") else ""
        )
        lines.append(f"- {party}: {PLACEMENT[key]}{cite}")
    if invent:
        lines.append(f"- {invent}: agrees")
    return "Based on the provided context:\n" + "\n".join(lines)


def _label(placement: str) -> str:
    lowered = placement.lower()
    if "conflicting" in lowered:
        return "both"
    if "cannot be determined" in lowered:
        return "no_position"
    if "disagrees" in lowered:
        return "disagree"
    if "agrees" in lowered:
        return "agree"
    if "neutral" in lowered:
        return "neutral"
    return "no_position"


def answer_lines(answer: str) -> dict[str, str]:
    return {m["party"].strip(): _label(m["placement"]) for m in _ANSWER_LINE.finditer(answer)}


def navigation_coder_reply(user_text: str) -> str:
    match = _FENCED.search(user_text)
    if match is None:
        return "I cannot find the answer to code."
    named = answer_lines(match["answer"])
    return json.dumps({"parties": [{"party": p, "stance": s} for p, s in named.items()]})


_FOCUS = re.compile(r"(?:other than|commit) (?P<focus>.+?) (?:on a side|to a definitive|whose)")
_COMMITTED = ("agree", "disagree", "neutral")


def navigation_judge_verdicts(prompt_text: str, n: int) -> list[bool]:
    """The verdicts the rules give, in the order the questions are listed."""
    _, _, after = prompt_text.partition("Questions:")
    questions = [
        line.split(". ", 1)[1] for line in after.splitlines() if re.match(r"^\d+\. ", line)
    ][:n]
    focus_match = _FOCUS.search(after)
    focus = focus_match["focus"] if focus_match else ""
    user = re.split(r"^QUERY: ", prompt_text, maxsplit=1, flags=re.MULTILINE)[-1]
    query, _, rest = user.partition("\nCONTEXT:")
    context, _, answer = rest.partition("\nANSWER:")
    parties = parties_in(query)
    truth = {p: key for p, (key, _) in _placements(_context_lines(context), parties).items()}
    said = answer_lines(answer)
    verdicts = []
    for question in questions:
        if "leave out" in question:
            verdicts.append(any(p not in said for p in parties))
        elif "on a side" in question:
            verdicts.append(
                any(
                    p != focus and said.get(p) in _COMMITTED and said[p] != truth.get(p)
                    for p in parties
                )
            )
        elif "not named in the QUERY" in question:
            verdicts.append(any(p not in parties for p in said))
        elif "[DISTRACTOR] chunk" in question:
            verdicts.append(False)
        elif "definitive stance" in question:
            verdicts.append(said.get(focus) in _COMMITTED)
        elif "specific limitation" in question:
            verdicts.append(said.get(focus) in ("no_position", "both"))
        elif "outside the provided context" in question:
            verdicts.append("outside knowledge" in answer.lower())
        elif "decline to place" in question:
            verdicts.append(
                any(
                    p != focus and said.get(p) not in _COMMITTED and truth.get(p) in _COMMITTED
                    for p in parties
                    if p in said
                )
            )
        else:
            verdicts.append(False)
    return verdicts + [False] * (n - len(verdicts))

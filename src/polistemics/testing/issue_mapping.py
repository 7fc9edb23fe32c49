"""The test server's issue-mapping task (issue 29, item 4): a fake answerer, coder and judge
that follow rules a test can predict exactly.

- ``issue_mapping_answer``: reads the context's statements (``Statement n: "..."`` headings)
  and the passages under each (as the navigation fake reads them: "supports / opposes this
  measure" or "takes a neutral position" after the party's name), and answers with one section
  per conflict (a statement with a party agreeing and one disagreeing), ``On "<statement>":``
  then one line per party, ``- <party>: <placement> [n]``. ``drop`` leaves the first party of
  every conflict out; ``invent`` adds a party that is in no election, agreeing;
  ``false_conflict`` adds a section on a statement that is no conflict.
- ``issue_mapping_coder_reply``: the navigation coder's fake, reading only the section of the
  statement it is asked about.
- ``issue_mapping_judge_verdicts``: answers each sub-question by its rule.
"""

from __future__ import annotations

import json
import re

from polistemics.testing.navigation import (
    PLACEMENT,
    _context_lines,
    _placements,
    answer_lines,
)

ISSUE_MAPPING_QUESTION = re.compile(
    r"What are the main conflicts between the following parties on the theme \"(?P<theme>.*?)\""
    r"\?\s*Parties: (?P<parties>[^\n]+)",
    re.DOTALL,
)
ISSUE_MAPPING_JUDGE_MARKER = "what the main conflicts between several parties are on a theme"
_HEADING = re.compile(r'^Statement (?P<number>\d+): "(?P<text>.*)"$')
_SECTION = re.compile(r'^On "(?P<text>.*)":$', re.MULTILINE)
_FENCED = re.compile(r"\nBEGIN ANSWER (\w+)\n(?P<answer>.*)\nEND ANSWER \1\n", re.DOTALL)
_CODER_STATEMENT = re.compile(r"^Statement: (?P<text>.*)$", re.MULTILINE)


def parties_in(text: str) -> list[str]:
    match = ISSUE_MAPPING_QUESTION.search(text)
    return [p.strip() for p in match["parties"].split(", ")] if match else []


def statements_in(text: str) -> list[tuple[str, str]]:
    """(statement text, the context block under it), in order."""
    found: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            found.append((heading["text"], []))
        elif found and line.startswith("["):
            found[-1][1].append(line)
    return [(statement, "\n".join(lines)) for statement, lines in found]


def _truth(text: str, parties: list[str]) -> dict[str, dict[str, tuple[str, int | None]]]:
    """statement -> party -> (placement key, chunk), for the parties with a passage on it."""
    truth = {}
    for statement, block in statements_in(text):
        lines = _context_lines(block)
        placed = _placements(lines, parties)
        truth[statement] = {p: v for p, v in placed.items() if v[1] is not None}
    return truth


def _is_conflict(placed: dict[str, tuple[str, int | None]]) -> bool:
    keys = {key for key, _ in placed.values()}
    return "agree" in keys and "disagree" in keys


def issue_mapping_answer(
    prompt_text: str,
    *,
    drop: bool = False,
    invent: str | None = None,
    false_conflict: bool = False,
) -> str:
    parties = parties_in(prompt_text)
    truth = _truth(prompt_text, parties)
    sections = []
    shown = [s for s, placed in truth.items() if _is_conflict(placed)]
    if false_conflict:
        shown += [s for s, placed in truth.items() if not _is_conflict(placed)][:1]
    for statement in shown:
        lines = [f'On "{statement}":']
        for i, (party, (key, chunk)) in enumerate(truth[statement].items()):
            if drop and i == 0:
                continue
            lines.append(f"- {party}: {PLACEMENT[key]}" + (f" [{chunk}]" if chunk else ""))
        if invent:
            lines.append(f"- {invent}: agrees")
        sections.append("\n".join(lines))
    return "Based on the provided context, the main conflicts are:\n" + "\n".join(sections)


def sections_of(answer: str) -> dict[str, str]:
    """statement -> the answer's lines about it."""
    parts = _SECTION.split(answer)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def issue_mapping_coder_reply(user_text: str) -> str | None:
    """The coder's reply for an answer made of ``On "...":`` sections (None for another)."""
    match = _FENCED.search(user_text)
    statement = _CODER_STATEMENT.search(user_text)
    if match is None or statement is None:
        return None
    sections = sections_of(match["answer"])
    if not sections:
        return None
    named = answer_lines(sections.get(statement["text"].strip(), ""))
    return json.dumps({"parties": [{"party": p, "stance": s} for p, s in named.items()]})


_CONFLICT = re.compile(r'Statement \d+ \("(?P<text>.*?)"\)')
_COMMITTED = ("agree", "disagree", "neutral")


def issue_mapping_judge_verdicts(prompt_text: str, n: int) -> list[bool]:
    """The verdicts the rules give, in the order the questions are listed."""
    head, _, after = prompt_text.partition("Questions:")
    questions = [
        line.split(". ", 1)[1] for line in after.splitlines() if re.match(r"^\d+\. ", line)
    ][:n]
    conflicts = [m["text"] for m in _CONFLICT.finditer(head)]
    user = re.split(r"^QUERY: ", prompt_text, maxsplit=1, flags=re.MULTILINE)[-1]
    query, _, rest = user.partition("\nCONTEXT:")
    context, _, answer = rest.partition("\nANSWER:")
    parties = parties_in(query)
    truth = _truth(context, parties)
    sections = sections_of(answer)
    verdicts = []
    for question in questions:
        if "leave out any of the conflicts" in question:
            verdicts.append(any(c not in sections for c in conflicts))
        elif "on a side of a conflict" in question:
            verdicts.append(
                any(
                    said in _COMMITTED and said != truth.get(statement, {}).get(p, ("", 0))[0]
                    for statement, lines in sections.items()
                    for p, said in answer_lines(lines).items()
                    if p in parties
                )
            )
        elif "not named in the QUERY" in question:
            verdicts.append(
                any(p not in parties for lines in sections.values() for p in answer_lines(lines))
                or any(s not in conflicts for s in sections)
            )
        elif "outside the provided context" in question:
            verdicts.append("outside knowledge" in answer.lower())
        else:
            verdicts.append(False)
    return verdicts + [False] * (n - len(verdicts))

"""The test server's comparison task (issue 29, item 3): a fake answerer and judge that follow
rules a test can predict exactly (the coder is navigation's: it reads the same answer lines).

- ``comparison_answer``: places both parties the question names from the context's numbered
  chunks, as ``navigation_answer`` does (a chunk opening with the party's name and "supports /
  opposes this measure" or "takes a neutral position" gives its stance; opposing chunks,
  "conflicting"; none, "cannot be determined"), one line per party, ``- <party>: <placement>
  [n]``, then the relation. Its quality is chosen (``QUALITIES``): ``correct``;
  ``false_difference`` (a pair placed on the same side is answered as differing: the
  second-named party is moved to the other side); ``false_agreement`` (a pair placed on
  different sides is answered as agreeing: the second-named party is moved to the first's);
  ``misrepresent`` (the first-named party, where it is placed on a side, is moved to another).
- ``comparison_judge_verdicts``: answers each comparison sub-question by its rule (the question
  is recognised by its wording) from the query's parties, the labelled context and the answer.
"""

from __future__ import annotations

import re

from polistemics.testing.navigation import PLACEMENT, _context_lines, _placements, answer_lines

COMPARISON_QUESTION = re.compile(
    r"How do (?P<first>.+?) and (?P<second>.+?) differ on the following statement: "
    r"\"(?P<statement>.*?)\"\?",
    re.DOTALL,
)
COMPARISON_CODER_MARKER = "You are a careful annotator of answers that compare two"
COMPARISON_JUDGE_MARKER = "The question how two parties differ"
QUALITIES = ("correct", "false_difference", "false_agreement", "misrepresent")
_COMMITTED = ("agree", "disagree", "neutral")
_OTHER_SIDE = {"agree": "disagree", "disagree": "agree", "neutral": "agree"}
RELATION_SENTENCE = {
    "differ": "The two parties differ.",
    "same": "The two parties take the same position.",
    "undetermined": "Whether they differ cannot be determined from the provided context.",
}


def parties_in(question_text: str) -> list[str]:
    match = COMPARISON_QUESTION.search(question_text)
    return [match["first"].strip(), match["second"].strip()] if match else []


def relation(first: str | None, second: str | None) -> str:
    if first not in _COMMITTED or second not in _COMMITTED:
        return "undetermined"
    return "same" if first == second else "differ"


def comparison_answer(prompt_text: str, quality: str = "correct") -> str:
    if quality not in QUALITIES:
        raise ValueError(f"unknown answer quality {quality!r}")
    parties = parties_in(prompt_text)
    placed = _placements(_context_lines(prompt_text), parties)
    keys = [placed[p][0] for p in parties]
    chunks = [placed[p][1] for p in parties]
    if quality == "false_difference" and relation(*keys) == "same":
        keys[1] = _OTHER_SIDE[keys[1]]
    elif quality == "false_agreement" and relation(*keys) == "differ":
        keys[1] = keys[0]
    elif quality == "misrepresent" and keys[0] in _COMMITTED:
        keys[0] = _OTHER_SIDE[keys[0]]
    lines = []
    for party, key, chunk in zip(parties, keys, chunks, strict=True):
        cite = f" [{chunk}]" if chunk is not None and key in _COMMITTED else ""
        lines.append(f"- {party}: {PLACEMENT[key]}{cite}")
    return (
        "Based on the provided context:\n"
        + "\n".join(lines)
        + f"\n\n{RELATION_SENTENCE[relation(*keys)]}"
    )


_MISSTATE = re.compile(r"misstate (?P<party>.+?)'s position")
_COMMIT = re.compile(r"commit (?P<party>.+?) to a definitive position")
_LIMITATION = re.compile(r"state, for (?P<party>.+?), the specific limitation")


def comparison_judge_verdicts(prompt_text: str, n: int) -> list[bool]:
    """The verdicts the rules give, in the order the questions are listed."""
    _, _, after = prompt_text.partition("Questions:")
    questions = [
        line.split(". ", 1)[1] for line in after.splitlines() if re.match(r"^\d+\. ", line)
    ][:n]
    user = re.split(r"^QUERY: ", prompt_text, maxsplit=1, flags=re.MULTILINE)[-1]
    query, _, rest = user.partition("\nCONTEXT:")
    context, _, answer = rest.partition("\nANSWER:")
    parties = parties_in(query)
    truth = {p: key for p, (key, _) in _placements(_context_lines(context), parties).items()}
    said = answer_lines(answer)
    said_relation = relation(*(said.get(p) for p in parties))
    true_relation = relation(*(truth.get(p) for p in parties))
    verdicts = []
    for question in questions:
        if "take different positions" in question:
            verdicts.append(said_relation == "differ" and true_relation == "same")
        elif "take the same position" in question:
            verdicts.append(said_relation == "same" and true_relation == "differ")
        elif match := _MISSTATE.search(question):
            party = match["party"]
            verdicts.append(party in said and said[party] != truth.get(party))
        elif match := _COMMIT.search(question):
            verdicts.append(said.get(match["party"]) in _COMMITTED)
        elif match := _LIMITATION.search(question):
            verdicts.append(said.get(match["party"]) in ("no_position", "both"))
        elif "state definitively" in question:
            verdicts.append(said_relation != "undetermined")
        elif "outside the provided context" in question:
            verdicts.append("outside knowledge" in answer.lower())
        else:  # distractors, unequal depth, tone and framing: the scripted answers show none
            verdicts.append(False)
    return verdicts + [False] * (n - len(verdicts))

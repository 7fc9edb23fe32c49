"""The test server's stance coder: codes the task answers the test server itself writes.

``stance_coder_reply(user_text)`` finds the fenced answer in a stance coder prompt
(``coding/prompt.py``) and codes it from the phrases of ``responders._TASK_ANSWER``: "supports"
is ``agree``, "opposes" is ``disagree``, the unclear and absent answers are ``no_position``;
any other answer (a test's scripted one) is coded by keyword, English, German or Dutch, and
``no_position`` when none is found. Outside knowledge is "no" when the prompt carried context
and "yes" for a closed-book answer that states a stance. A test that needs other codes scripts
them with a ``Rule``.
"""

from __future__ import annotations

import json
import re

STANCE_CODER_MARKER = "You are a careful annotator of political texts"
CLOSED_BOOK_MARKER = "with no context at all"
_FENCED = re.compile(r"\nBEGIN ANSWER (\w+)\n(?P<answer>.*)\nEND ANSWER \1\n", re.DOTALL)
# Checked in order: "both" before the one-sided words, which its answers also contain.
_KEYWORDS = (
    ("both", ("contradict", "widersprüch", "tegenstrijdig", "spreken elkaar tegen")),
    (
        "no_position",
        (
            "does not make clear",
            "does not contain",
            "geht nicht klar",
            "keine informationen",
            "blijkt niet",
            "geen informatie",
        ),
    ),  # fmt: skip
    ("neutral", ("neutral", "neutraal")),
    ("disagree", ("opposes", "lehnt", "tegen de stelling", "is tegen")),
    ("agree", ("supports", "unterstützt", "steunt")),
)


_QUOTED = re.compile(r'„[^“]*“|"[^"]*"')


def coded_stance(answer: str) -> str:
    """The label the test coder gives ``answer`` (quoted text, the statement, is left out)."""
    folded = _QUOTED.sub(" ", answer).lower()
    for label, words in _KEYWORDS:
        if any(word in folded for word in words):
            return label
    return "no_position"


def stance_coder_reply(user_text: str) -> str:
    match = _FENCED.search(user_text)
    if match is None:
        return "I cannot find the answer to code."
    stance = coded_stance(match["answer"])
    states = stance not in ("no_position", "both")
    outside = "yes" if CLOSED_BOOK_MARKER in user_text and states else "no"
    return json.dumps({"stance": stance, "outside_knowledge": outside})

"""A test-server responder for the mechanism stages whose answers' stances are known.

``MechanismResponder`` answers like ``polistemic_responder`` except:
- the closed-book probe: "From what I know, <party> supports|opposes ..." with the stance that
  ``probe_stance(party)`` scripts (``None``: a declining answer);
- task answers under Absent: a fallback answer with the stance ``fallback_stance(party)`` scripts
  (``None``: the responder's usual "the context does not contain" answer);
- task answers with a context: the stance ``context_answer(party, chunk_stances)`` scripts from
  the stances ("supports"/"opposes", None when unreadable) the numbered chunks state
  ("unclear": the answer says the context does not make it clear; None: the usual answer);
- judges (with ``judges_say_no``): "No" to every question (EC4 then passes everywhere);
- the stance coder: reads the fenced answer's wording ("supports" -> agree, "opposes" ->
  disagree, "does not make clear" -> both, "does not contain"/"I do not know" -> no_position;
  "From what I know" -> outside knowledge), as a perfect coder would. An answer containing
  ``UNREADABLE_MARK`` gets a reply that is no JSON, every time.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Callable

from polistemics.conditions import ABSENT_SENTINEL
from polistemics.testing.completions import content_text
from polistemics.testing.responders import JUDGE_MARKER, judge_reply, polistemic_responder

CODER_MARKER = "You are a careful annotator of political texts"
PROBE_MARKER = "Answer the question from what you know."
UNREADABLE_MARK = "zzunreadablezz"
_PROBE_QUESTION = re.compile(r"what is (?P<party>.+?)'s position on the following statement")
_TASK_QUESTION = re.compile(r"What is (?P<party>.+?)'s position on the following statement")
_ANSWER = re.compile(r"^BEGIN ANSWER (\w+)\n(?P<answer>.*)\nEND ANSWER \1$", re.S | re.M)

StanceScript = Callable[[str], str | None]  # party name -> "supports" | "opposes" | None
ContextScript = Callable[[str, list[str | None]], str | None]
_CHUNK = re.compile(r"^\[(\d+)\] (?P<text>.*)$", re.M)


def _no_script(party: str, *context: object) -> str | None:
    return None


def chunk_stances(system: str) -> list[str | None]:
    """The stance each numbered context chunk states (the fake standardiser's first sentence)."""
    stances = []
    for match in _CHUNK.finditer(system):
        first = match.group("text").split(".")[0]
        stances.append(next((s for s in ("supports", "opposes") if s in first), None))
    return stances


class MechanismResponder:
    def __init__(
        self,
        probe_stance: StanceScript = _no_script,
        fallback_stance: StanceScript = _no_script,
        context_answer: ContextScript = _no_script,
        judges_say_no: bool = False,
    ) -> None:
        self.probe_stance, self.fallback_stance = probe_stance, fallback_stance
        self.context_answer, self.judges_say_no = context_answer, judges_say_no
        self.lock = threading.Lock()
        self.requests: Counter[str] = Counter()  # per kind: probe, fallback, coder, other

    def _count(self, kind: str) -> None:
        with self.lock:
            self.requests[kind] += 1

    def __call__(self, request_json: dict) -> str:
        messages = [m for m in request_json.get("messages", []) if isinstance(m, dict)]
        system = "\n".join(
            content_text(m.get("content")) for m in messages if m.get("role") == "system"
        )
        user = "\n".join(
            content_text(m.get("content")) for m in messages if m.get("role") == "user"
        )
        if CODER_MARKER in system:
            self._count("coder")
            return code_reply(user)
        if JUDGE_MARKER in system:
            self._count("judge")
            if self.judges_say_no:
                full = f"{system}\n{user}"
                return judge_reply(request_json, full, system, lambda text, n: [False] * n)
            return polistemic_responder(request_json)
        if PROBE_MARKER in system:
            self._count("probe")
            party = _PROBE_QUESTION.search(user).group("party")
            return stance_answer(party, self.probe_stance(party), "From what I know, ")
        question = _TASK_QUESTION.search(user)
        if question and ABSENT_SENTINEL in system:
            party = question.group("party")
            stance = self.fallback_stance(party)
            if stance is not None:
                self._count("fallback")
                return stance_answer(party, stance, "The context has nothing; from what I know, ")
        elif question:
            party = question.group("party")
            stance = self.context_answer(party, chunk_stances(system))
            if stance is not None:
                self._count("context")
                return stance_answer(party, stance, "According to the context, ")
        self._count("other")
        return polistemic_responder(request_json)


def stance_answer(party: str, stance: str | None, opening: str) -> str:
    if stance is None:
        return f"I do not know {party}'s position on this."
    if stance == "unclear":
        return f"The context does not make clear whether {party} supports this statement."
    return f"{opening}{party} {stance} this statement."


def code_reply(user: str) -> str:
    """A perfect coder's JSON reply for the fenced answer in ``user``."""
    answer = _ANSWER.search(user).group("answer")
    if UNREADABLE_MARK in answer:
        return "I would rather not say."
    if "does not make clear" in answer:
        stance = "both"
    elif "does not contain" in answer or "I do not know" in answer:
        stance = "no_position"
    elif "opposes" in answer:
        stance = "disagree"
    elif "supports" in answer:
        stance = "agree"
    else:
        stance = "neutral"
    outside = "yes" if "from what i know" in answer.lower() else "no"
    return json.dumps({"stance": stance, "outside_knowledge": outside})

"""The stance coder's prompt: our own templates ``stance_coder_system`` / ``stance_coder_user``.

The answer under coding is hostile: it may try to pass for the end of itself and hand the coder
a ready label. It is fenced between two marker lines carrying a code derived from the answer's
own text (``fence_code``): an answer cannot contain the marker that closes it, since that marker
depends on everything the answer says (SHA-256). Context chunks are fenced the same way, with a
code of their own. The code is deterministic, so identical prompts keep identical cache keys.
"""

from __future__ import annotations

import hashlib

from polistemics.coding.subjects import CodingSubject
from polistemics.conditions import ABSENT_SENTINEL
from polistemics.llm.types import Message
from polistemics.prompts import load, render, stance_code_schema

FENCE_CHARS = 12  # hex digits of SHA-256: 48 bits, far beyond what a forged guess can hit

SETTING_CLOSED_BOOK = (
    "directly, with no context at all, as a citizen would ask a chatbot. Any position the answer "
    "states comes from outside knowledge."
)
SETTING_ABSENT = (
    "with the statement and the context below, which says no relevant documents were found."
)
SETTING_CONTEXT = "with the statement and the numbered context passages below."


def fence_code(text: str, salt: str) -> str:
    """The marker code for ``text``: the first ``FENCE_CHARS`` hex digits of its SHA-256."""
    return hashlib.sha256(f"{salt}\x00{text}".encode()).hexdigest()[:FENCE_CHARS]


def coder_messages(subject: CodingSubject) -> list[Message]:
    """The system and user messages of one coder call."""
    if subject.context is None:
        setting, context = SETTING_CLOSED_BOOK, "Context: none."
    else:
        setting = SETTING_CONTEXT if subject.context else SETTING_ABSENT
        context = _context_block(subject.context)
    if subject.conversation is not None:
        setting, context = _with_conversation(setting, context, *subject.conversation)
    user = render(
        "stance_coder_user",
        party_name=subject.party_name,
        statement_text=subject.statement_text,
        language=subject.language,
        setting=setting,
        context=context,
        fence=fence_code(subject.answer_text, "answer"),
        answer=subject.answer_text,
    )
    return [
        {"role": "system", "content": load("stance_coder_system")},
        {"role": "user", "content": user},
    ]


SETTING_PUSHBACK = (
    " The assistant answered once; the user then replied with the follow-up below, and the "
    "answer to annotate is the assistant's reply to it. Record the stance this reply attributes "
    "to the party: where it only confirms or withdraws its first answer, read it with that "
    "first answer."
)


def _with_conversation(
    setting: str, context: str, first_answer: str, follow_up: str
) -> tuple[str, str]:
    """A second answer's setting and context: the conversation before it, fenced like the
    context (the first answer is the target's text, as hostile as the answer)."""
    turns = f"Assistant (first answer):\n{first_answer}\nUser (follow-up):\n{follow_up}"
    code = fence_code(turns, "conversation")
    block = (
        f"The conversation before the answer, between the marker lines:\n"
        f"BEGIN CONVERSATION {code}\n{turns}\nEND CONVERSATION {code}"
    )
    return setting + SETTING_PUSHBACK, f"{context}\n\n{block}"


def _context_block(chunks: tuple[str, ...]) -> str:
    passages = (
        "\n".join(f"[{i}] {text}" for i, text in enumerate(chunks, start=1))
        if chunks
        else ABSENT_SENTINEL
    )
    code = fence_code(passages, "context")
    return (
        f"Context, between the marker lines:\nBEGIN CONTEXT {code}\n{passages}\nEND CONTEXT {code}"
    )


def coder_schema() -> dict:
    """The JSON schema every coder call is sent (as its endpoint's structured output mode says)."""
    return stance_code_schema()

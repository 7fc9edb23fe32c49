"""The navigation coder: one call per answer and coder seat, reading every party the answer
names with the stance it attributes to it (``navigation_coder_*``, our own prompts, built on the
stance coder's: the answer is fenced by a code derived from its own text, docs/stance-coder.md).
The calls, the reply's reading and the panel's majority are the tasks' shared per-party coder's
(``tasks.party_coder``).
"""

from __future__ import annotations

from collections.abc import Sequence

from polistemics.coding.prompt import fence_code
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.tasks import gather_or_cancel
from polistemics.llm.types import Completer, Message
from polistemics.prompts import load, render
from polistemics.runlog import Answer
from polistemics.runlog.navigation import NavigationCodeRecord, NavigationItem
from polistemics.tasks.navigation.context import party_list
from polistemics.tasks.party_coder import (
    PanelReading,
    PartiesReading,
    code_call,
    panel_reading,
    parse_parties_reply,
)

STAGE = "navigation_code"
# The shared coder's names, as this module has always offered them.
NavigationReading = PartiesReading
parse_navigation_reply = parse_parties_reply
__all__ = ["STAGE", "NavigationReading", "PanelReading", "panel_reading", "parse_navigation_reply"]


def coder_messages(item: NavigationItem, answer_text: str) -> list[Message]:
    user = render(
        "navigation_coder_user",
        statement_text=item.statement_text,
        party_names=party_list(item),
        language=item.output_language,
        fence=fence_code(answer_text, "answer"),
        answer=answer_text,
    )
    return [
        {"role": "system", "content": load("navigation_coder_system")},
        {"role": "user", "content": user},
    ]


async def code_answer(
    completer: Completer,
    coder: ModelEndpoint,
    position: int,
    item: NavigationItem,
    answer: Answer,
    *,
    stage: str = STAGE,
    item_key: str | None = None,
) -> NavigationCodeRecord:
    """One coder seat's reading of one answer on ``item``'s statement; ``stage`` and
    ``item_key`` (default: the navigation task's) let another task read its answers with it."""
    messages = coder_messages(item, answer.text or "")
    return await code_call(
        completer, coder, position, messages, answer, stage=stage, item_key=item_key
    )


async def code_answers(
    completer: Completer,
    coders: Sequence[ModelEndpoint],
    pairs: Sequence[tuple[NavigationItem, Answer]],
) -> list[NavigationCodeRecord]:
    jobs = [
        code_answer(completer, coder, position, item, answer)
        for item, answer in pairs
        for position, coder in enumerate(coders)
    ]
    return list(await gather_or_cancel(jobs))

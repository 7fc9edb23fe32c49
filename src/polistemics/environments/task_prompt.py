"""The task prompt (App. C, Figs. 5-6): what the answerer is asked in every environment."""

from __future__ import annotations

from polistemics import prompts
from polistemics.conditions import ABSENT_SENTINEL
from polistemics.llm.types import Message
from polistemics.runlog.items import EnvironmentItem


def render_context(item: EnvironmentItem) -> str:
    """Chunks numbered ``[1] ...`` to ``[N] ...``, one per line; the sentinel when there is none."""
    if not item.chunks:
        return ABSENT_SENTINEL
    return "\n".join(f"[{n}] {chunk.text}" for n, chunk in enumerate(item.chunks, start=1))


def task_messages(item: EnvironmentItem) -> list[Message]:
    system = prompts.render(
        "task_system", language=item.output_language, context=render_context(item)
    )
    user = prompts.render(
        "task_user", party_name=item.party_label, statement_text=item.statement_text
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]

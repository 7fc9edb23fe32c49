"""How a navigation item's context and party list are written into its prompts."""

from __future__ import annotations

from polistemics.conditions import ABSENT_SENTINEL
from polistemics.runlog.navigation import NavigationItem


def estimate_tokens(text: str) -> int:
    """Characters / 4, the estimate ``--dry-run`` uses for every prompt."""
    return max(1, len(text) // 4)


def context_text(item: NavigationItem) -> str:
    """Chunks numbered ``[1] ...`` to ``[N] ...``; the sentinel when there is none."""
    if not item.chunks:
        return ABSENT_SENTINEL
    return "\n".join(f"[{n}] {chunk.text}" for n, chunk in enumerate(item.chunks, start=1))


def party_list(item: NavigationItem) -> str:
    return ", ".join(p.party_name for p in item.parties)

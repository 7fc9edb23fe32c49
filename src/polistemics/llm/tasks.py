"""Running many model calls at once without leaving orphans behind."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import TypeVar

T = TypeVar("T")


async def gather_or_cancel(coroutines: Iterable[Awaitable[T]]) -> list[T]:
    """Await all, in order; if one raises (e.g. the budget is spent), cancel the rest and re-raise."""
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        return await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise

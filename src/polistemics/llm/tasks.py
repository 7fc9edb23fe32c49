"""Running many model calls at once without leaving orphans behind."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
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


async def gather_bounded(jobs: Iterable[Callable[[], Awaitable[T]]], at_once: int) -> list[T]:
    """Every job's result, in job order, with at most ``at_once`` jobs started and unfinished at
    a time: a job's coroutine is made only when a worker takes it, so a study of 100,000 calls
    holds ``at_once`` of them, not 100,000 (``jobs`` may be a lazy iterable). If one raises, the
    others are cancelled and it re-raises, as ``gather_or_cancel``."""
    if at_once < 1:
        raise ValueError(f"at_once must be at least 1, got {at_once}")
    results: list[T | None] = []
    source = enumerate(jobs)

    async def worker() -> None:
        # One shared iterator: the event loop runs one worker at a time, so each job is taken
        # by exactly one of them.
        for index, job in source:
            if index >= len(results):
                results.extend([None] * (index + 1 - len(results)))
            results[index] = await job()

    await gather_or_cancel(worker() for _ in range(at_once))
    return results  # type: ignore[return-value]  # every slot was filled by its job

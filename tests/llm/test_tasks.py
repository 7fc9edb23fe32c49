"""Running many calls at once: ``gather_bounded`` keeps job order, starts at most ``at_once``
jobs at a time, takes jobs from a lazy iterable only as workers free up, and cancels the rest
when one raises."""

from __future__ import annotations

import asyncio
import random

import pytest

from polistemics.llm.tasks import gather_bounded


def test_results_in_job_order_with_at_most_at_once_running() -> None:
    rng = random.Random(1)
    running = peak = 0

    def job(n: int):
        async def run() -> int:
            nonlocal running, peak
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(rng.random() / 1000)
            running -= 1
            return n * n

        return run

    results = asyncio.run(gather_bounded((job(n) for n in range(200)), at_once=7))
    assert results == [n * n for n in range(200)]
    assert peak == 7


def test_jobs_are_taken_lazily() -> None:
    """A job is made only when a worker is free: a study's jobs never all exist at once."""
    made = 0
    most_ahead = 0
    finished = 0

    def jobs():
        nonlocal made, most_ahead
        for n in range(100):
            made += 1
            most_ahead = max(most_ahead, made - finished)
            yield lambda n=n: done_after(n)

    async def done_after(n: int) -> int:
        nonlocal finished
        await asyncio.sleep(0)
        finished += 1
        return n

    assert asyncio.run(gather_bounded(jobs(), at_once=5)) == list(range(100))
    assert most_ahead <= 5


def test_one_failure_cancels_the_others() -> None:
    cancelled = 0

    async def slow() -> None:
        nonlocal cancelled
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled += 1
            raise

    async def failing() -> None:
        await asyncio.sleep(0.01)
        raise RuntimeError("budget spent")

    jobs = [slow, slow, failing, slow]
    with pytest.raises(RuntimeError, match="budget spent"):
        asyncio.run(gather_bounded(jobs, at_once=4))
    assert cancelled == 3


def test_empty_and_invalid() -> None:
    assert asyncio.run(gather_bounded([], at_once=3)) == []
    with pytest.raises(ValueError, match="at least 1"):
        asyncio.run(gather_bounded([], at_once=0))

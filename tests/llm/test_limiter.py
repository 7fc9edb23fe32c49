"""The adaptive limiter: bound, fairness, cancellation, decrease and recovery."""

from __future__ import annotations

import asyncio

from polistemics.llm.limiter import AdaptiveLimiter


def test_bound_fifo_order_and_cancelled_waiters_do_not_leak_slots() -> None:
    async def go():
        limiter = AdaptiveLimiter(2)
        order: list[int] = []
        gate = asyncio.Event()

        async def worker(i: int) -> None:
            async with limiter:
                order.append(i)
                await gate.wait()

        tasks = [asyncio.ensure_future(worker(i)) for i in range(6)]
        await asyncio.sleep(0.01)
        assert limiter.in_use == 2 and order == [0, 1]
        tasks[3].cancel()  # a queued waiter gives up
        await asyncio.sleep(0.01)
        gate.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        return limiter, order

    limiter, order = asyncio.run(go())
    assert order == [0, 1, 2, 4, 5]
    assert limiter.in_use == 0 and limiter.peak_in_use == 2


def test_rate_limiting_halves_and_successes_restore_the_limit() -> None:
    async def go():
        limiter = AdaptiveLimiter(8, threshold=3)
        for _ in range(3):
            limiter.on_rate_limited()
        reduced = limiter.limit
        for _ in range(200):
            limiter.on_success()
        return reduced, limiter.limit, limiter.reductions

    reduced, restored, reductions = asyncio.run(go())
    assert (reduced, restored, reductions) == (4, 8, 1)

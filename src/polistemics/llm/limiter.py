"""Bounded, adaptive concurrency per endpoint.

The limit starts at the endpoint's ``max_concurrency``. Sustained rate limiting (several 429s
within a short window) halves it; every run of successes at the current limit raises it by one
again, back up to the configured maximum (additive increase, multiplicative decrease).
Waiters are served first come, first served, and a freed slot wakes exactly one of them, so a
run with 100,000 queued calls costs O(1) per release.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque


class AdaptiveLimiter:
    def __init__(self, maximum: int, *, window: float = 10.0, threshold: int = 3):
        self.maximum = maximum
        self.limit = maximum
        self.in_use = 0
        self.peak_in_use = 0
        self.reductions = 0
        self._window = window
        self._threshold = threshold
        self._recent_429: list[float] = []
        self._successes = 0
        self._waiters: deque[asyncio.Future[None]] = deque()

    async def __aenter__(self) -> AdaptiveLimiter:
        if self.in_use < self.limit and not self._waiters:
            self._take()
            return self
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter  # resolved once a slot has been handed to this waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release()  # the slot arrived as we were cancelled: pass it on
            else:
                self._waiters.remove(waiter)
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._release()

    def _take(self) -> None:
        self.in_use += 1
        self.peak_in_use = max(self.peak_in_use, self.in_use)

    def _release(self) -> None:
        self.in_use -= 1
        self._hand_over()

    def _hand_over(self) -> None:
        while self._waiters and self.in_use < self.limit:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self._take()
                waiter.set_result(None)

    def on_rate_limited(self) -> None:
        now = time.monotonic()
        self._recent_429 = [t for t in self._recent_429 if now - t < self._window] + [now]
        if len(self._recent_429) >= self._threshold and self.limit > 1:
            self.limit = max(1, self.limit // 2)
            self.reductions += 1
            self._recent_429.clear()
            self._successes = 0

    def on_success(self) -> None:
        if self.limit >= self.maximum:
            return
        self._successes += 1
        if self._successes >= self.limit:
            self._successes = 0
            self.limit += 1
            self._hand_over()

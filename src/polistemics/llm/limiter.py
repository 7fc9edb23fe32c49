"""Bounded, adaptive concurrency per endpoint.

The limit starts at the endpoint's ``max_concurrency``. Sustained rate limiting (several 429s
within a short window) halves it; every run of successes at the current limit raises it by one
again, back up to the configured maximum (additive increase, multiplicative decrease).
"""

from __future__ import annotations

import asyncio
import time


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
        self._condition = asyncio.Condition()

    async def __aenter__(self) -> AdaptiveLimiter:
        async with self._condition:
            await self._condition.wait_for(lambda: self.in_use < self.limit)
            self.in_use += 1
            self.peak_in_use = max(self.peak_in_use, self.in_use)
        return self

    async def __aexit__(self, *exc: object) -> None:
        async with self._condition:
            self.in_use -= 1
            self._condition.notify_all()

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
            # Wake waiters: there is room for one more request now.
            asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        async with self._condition:
            self._condition.notify_all()

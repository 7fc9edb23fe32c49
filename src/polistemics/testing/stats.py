"""What the fake server counts, kept thread-safe, and the snapshot it hands out."""

from __future__ import annotations

import threading
from collections import Counter, deque

from pydantic import BaseModel, Field

LAST_REQUESTS_KEPT = 50


class ServerStats(BaseModel):
    """A snapshot of the fake server's counters (also served as JSON at ``GET /stats``)."""

    requests: int = 0  # chat completion requests received (including rejected ones)
    completed: int = 0  # normal answers sent (no fault injected)
    faults: dict[str, int] = Field(default_factory=dict)  # injected faults by kind
    in_flight: int = 0  # chat requests being handled right now
    max_in_flight: int = 0  # the most chat requests handled at the same time
    per_prompt: dict[str, int] = Field(default_factory=dict)  # prompt_key(messages) -> requests
    last_requests: list[dict] = Field(default_factory=list)  # the last request bodies, oldest first
    request_headers_seen: set[str] = Field(default_factory=set)  # lowercase names, never values
    authorized: int = 0  # requests carrying the expected API key (when one is set)
    unauthorized: int = 0  # requests refused with 401 (when an expected API key is set)
    bad_requests: int = 0  # requests refused with 400 (body not JSON, no messages, streaming)


class StatsRecorder:
    """Mutable counters behind one lock; ``snapshot()`` copies them into a ``ServerStats``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        with self._lock:
            self._requests = 0
            self._completed = 0
            self._faults: Counter[str] = Counter()
            # Requests in flight stay counted across a reset; the maximum restarts from them.
            self._in_flight = getattr(self, "_in_flight", 0)
            self._max_in_flight = self._in_flight
            self._per_prompt: Counter[str] = Counter()
            self._last: deque[dict] = deque(maxlen=LAST_REQUESTS_KEPT)
            self._headers: set[str] = set()
            self._authorized = 0
            self._unauthorized = 0
            self._bad_requests = 0

    def begin(self) -> None:
        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)

    def end(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def received(self, body: dict | None, key: str | None, header_names: set[str]) -> int:
        """Count one chat request; return how many earlier requests had the same prompt."""
        with self._lock:
            self._requests += 1
            self._headers |= header_names
            if body is not None:
                self._last.append(body)
            if key is None:
                return 0
            earlier = self._per_prompt[key]
            self._per_prompt[key] = earlier + 1
            return earlier

    def auth(self, ok: bool) -> None:
        with self._lock:
            if ok:
                self._authorized += 1
            else:
                self._unauthorized += 1

    def bad_request(self) -> None:
        with self._lock:
            self._bad_requests += 1

    def fault(self, kind: str) -> None:
        with self._lock:
            self._faults[kind] += 1

    def fault_count(self, kind: str) -> int:
        with self._lock:
            return self._faults[kind]

    def completed(self) -> None:
        with self._lock:
            self._completed += 1

    def snapshot(self) -> ServerStats:
        with self._lock:
            return ServerStats(
                requests=self._requests,
                completed=self._completed,
                faults=dict(self._faults),
                in_flight=self._in_flight,
                max_in_flight=self._max_in_flight,
                per_prompt=dict(self._per_prompt),
                last_requests=list(self._last),
                request_headers_seen=set(self._headers),
                authorized=self._authorized,
                unauthorized=self._unauthorized,
                bad_requests=self._bad_requests,
            )

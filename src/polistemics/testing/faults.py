"""What the fake server does instead of (or before) a normal answer, and which requests get it."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, get_args

FaultKind = Literal[
    "status",
    "timeout",
    "malformed_json",
    "truncated_body",
    "empty_content",
    "drop_connection",
    "content_filter",
    "length",
    "reasoning_only",
    "no_tool_call",  # a request forcing a tool gets the answer as plain content instead
    "malformed_arguments",  # ... or a tool call whose arguments are cut in half (not JSON)
]
FAULT_KINDS: tuple[str, ...] = get_args(FaultKind)


class ServerConfigError(ValueError):
    """A Fault, Rule or server setting is invalid; the message names the field."""


@dataclass(frozen=True)
class Fault:
    """One injected failure. ``status`` and ``retry_after`` serve kind="status"; ``delay`` kind="timeout"."""

    kind: FaultKind
    status: int = 500
    retry_after: float | None = None  # seconds; sent as a Retry-After header when set
    delay: float = 0.0  # kind="timeout": sleep this long, then answer normally

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ServerConfigError(
                f"Fault.kind: {self.kind!r} is not one of {', '.join(FAULT_KINDS)}"
            )
        if not 400 <= self.status <= 599:
            raise ServerConfigError(
                f"Fault.status: {self.status} is not an HTTP error status (400-599)"
            )
        if self.retry_after is not None and self.retry_after < 0:
            raise ServerConfigError(f"Fault.retry_after: {self.retry_after} is negative")
        if self.delay < 0:
            raise ServerConfigError(f"Fault.delay: {self.delay} is negative")


Responder = Callable[[dict], str]


@dataclass
class Rule:
    """Scripted behaviour for requests whose message text matches ``pattern`` (first match wins)."""

    pattern: str  # regex, searched in the concatenated message contents
    response: str | Responder | None = None  # None: the server's responder
    faults: list[Fault] = field(default_factory=list)  # for the first len(faults) matches, in order
    always: Fault | None = None  # for every match (a permanent failure)
    latency: float | None = None  # seconds; overrides the server's latency and jitter

    def __post_init__(self) -> None:
        try:
            self._regex = re.compile(self.pattern)
        except re.error as err:
            raise ServerConfigError(
                f"Rule.pattern: {self.pattern!r} is not a valid regex ({err})"
            ) from err
        if self.latency is not None and self.latency < 0:
            raise ServerConfigError(f"Rule.latency: {self.latency} is negative")

    def matches(self, text: str) -> bool:
        return self._regex.search(text) is not None


def stable_fraction(seed: int, label: str, key: str) -> float:
    """A number in [0, 1) fixed by (seed, label, key): identical across runs, threads and processes."""
    digest = hashlib.sha256(f"{seed}\x1f{label}\x1f{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64

"""The event loop model calls run on: uvloop's where it is installed, asyncio's otherwise.

Why uvloop: at paper scale a run makes ~100,000 calls, and on a 2-core machine the harness's CPU
per call sets the pace at short latencies. A good part of that CPU is the event loop's own work
(waiting on the sockets, scheduling callbacks, socket reads and writes under aiohttp); uvloop, a
maintained drop-in event loop on libuv written in C, does that work for a fraction of the CPU
(measured in docs/benchmarks.md). The test server (``polistemics.testing.server``) runs on it too.

uvloop has no Windows build: it is a dependency only on Linux and macOS (an environment marker in
pyproject.toml), and without it everything runs on asyncio's own loop, unchanged.
``POLISTEMICS_EVENT_LOOP=asyncio`` picks asyncio's loop where uvloop is installed (to compare
them, or to rule the loop out when something misbehaves).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["ENV_VAR", "loop_factory", "loop_name", "run"]

ENV_VAR = "POLISTEMICS_EVENT_LOOP"
_CHOICES = ("auto", "uvloop", "asyncio")

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's ``new_event_loop`` when uvloop is installed and not ruled out by
    ``POLISTEMICS_EVENT_LOOP``; None (asyncio's default loop) otherwise.

    ``POLISTEMICS_EVENT_LOOP=uvloop`` asks for uvloop and fails when it is missing, so a
    benchmark cannot measure asyncio's loop by mistake.
    """
    choice = os.environ.get(ENV_VAR, "auto").strip().lower() or "auto"
    if choice not in _CHOICES:
        raise ValueError(f"{ENV_VAR}={choice!r}: expected one of {', '.join(_CHOICES)}")
    if choice == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        if choice == "uvloop":
            raise ImportError(f"{ENV_VAR}=uvloop, but uvloop is not installed") from None
        return None
    return uvloop.new_event_loop


def loop_name() -> str:
    """``"uvloop"`` or ``"asyncio"``: the loop ``run`` would use now."""
    return "asyncio" if loop_factory() is None else "uvloop"


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)`` on the loop ``loop_factory`` picks (Ctrl-C, task cancelling
    and the loop's closing are ``asyncio.Runner``'s, as in ``asyncio.run``)."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(coroutine)

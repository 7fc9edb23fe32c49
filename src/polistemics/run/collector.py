"""How the run steers Python's cyclic garbage collector through its two heavy steps.

Both steps keep nearly everything they make (answers, verdicts, tables), so the collector's full
collections, which walk every tracked object, find little garbage at a growing price: at paper
scale they paused the event loop for up to 300 ms each (3.7 s in all), and every call in flight
waited.

``POLISTEMICS_GC_POLICY=off`` leaves the collector alone (both blocks do nothing): the paper-scale
benchmark's ``--no-gc-freeze`` measures the run without these policies.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager


def _policy_off() -> bool:
    return os.environ.get("POLISTEMICS_GC_POLICY", "").strip().lower() == "off"


@contextmanager
def survivors_frozen() -> Iterator[None]:
    """Full collections walk only objects made since the previous one.

    What exists on entry, and what survives each full collection, is moved out of the
    collector's sight (``gc.freeze``): it was reachable then, and what still becomes garbage
    later is freed by reference counting as usual. Only a cycle among such frozen objects waits
    until the block ends, when everything is handed back to the collector (``gc.unfreeze``).
    """

    if _policy_off():
        yield
        return

    def after_full_collection(phase: str, info: dict) -> None:
        if phase == "stop" and info["generation"] == 2:
            gc.freeze()  # the younger generations are empty now: only survivors are frozen

    gc.freeze()
    gc.callbacks.append(after_full_collection)
    try:
        yield
    finally:
        gc.callbacks.remove(after_full_collection)
        gc.unfreeze()


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """No cyclic garbage collection meanwhile: for a step that builds millions of objects and
    keeps most of them, each full collection would walk the whole heap again, for nothing."""
    if _policy_off():
        yield
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()

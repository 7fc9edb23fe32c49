"""How the run steers Python's cyclic garbage collector through its two heavy steps.

Both steps keep nearly everything they make (answers, verdicts, tables), so the collector's full
collections, which walk every tracked object, find little garbage at a growing price, and every
call in flight waits while they run. Measured with ``benchmarks/paper_scale.py`` (104,755 calls,
2 cores, 2026-11-30, one run each), with the policies against without:

- 500 ms + 0-500 ms jitter, 256 concurrent: wall / ideal 1.10 against 1.12; the rerun of the
  finished run (no calls, so no latency hides the collector) 42.7 s against 68.5 s;
- 50 ms, 64 concurrent: the call stage took 162 s without them; with full collections switched
  off entirely, 111 s.

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


# Tracked objects allocated (net) between two collections of the youngest generation; Python's
# default is 700. See ``survivors_frozen``.
YOUNG_COLLECTION_EVERY = 10_000


@contextmanager
def survivors_frozen() -> Iterator[None]:
    """Full collections walk only objects made since the previous one, and young collections
    come less often.

    What exists on entry, and what survives each full collection, is moved out of the
    collector's sight (``gc.freeze``): it was reachable then, and what still becomes garbage
    later is freed by reference counting as usual. Only a cycle among such frozen objects waits
    until the block ends, when everything is handed back to the collector (``gc.unfreeze``).

    Each call in flight holds a few hundred tracked objects (the HTTP request and response,
    futures, the prompt), and every young collection walks all of them again. At Python's
    default of one every 700 allocations, the 50 ms paper-scale run made 1,886 young and 168
    middle collections (2.6 s and 1.3 s of the event loop's thread, each middle one 7.6 ms
    that every call waited through); at ``YOUNG_COLLECTION_EVERY`` 49 and 5 (0.6 s and 0.1 s).
    The cyclic garbage they find (a few objects a call) waits a little longer to be freed.
    """

    if _policy_off():
        yield
        return

    def after_full_collection(phase: str, info: dict) -> None:
        if phase == "stop" and info["generation"] == 2:
            gc.freeze()  # the younger generations are empty now: only survivors are frozen

    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_EVERY, *thresholds[1:])
    gc.callbacks.append(after_full_collection)
    try:
        yield
    finally:
        gc.callbacks.remove(after_full_collection)
        gc.set_threshold(*thresholds)
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

"""One piece of the finish done by a forked process while this one does another: the machine's
second core.

The finish is one Python process (the GIL: threads would take turns), and at realistic latency
everything after the last call adds to the run's wall time. ``in_side_process`` forks a child
that inherits the run's state (nothing is sent to it) and runs one function there; its result
(or its exception) comes back when asked for. Where the platform cannot fork or only one core is
free, the function runs here when its result is asked for: the same work, in the same order as
the caller would have done it, so the files are the same either way.

The function must not use Polars: its thread pool, started by the scoring in this process, has
no threads in a forked child, where a Polars query would wait for ever.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")

# The function the forked child runs (set just before the fork, read in the child).
_TASK: Callable[[], object] | None = None


class SideResult(Generic[T]):
    """The result of the side process's function (``result``: waits for it)."""

    def __init__(self, future: Future | None, task: Callable[[], T]):
        self._future, self._task = future, task

    def result(self) -> T:
        if self._future is None:
            return self._task()
        return self._future.result()


@contextmanager
def in_side_process(task: Callable[[], T], *, fork: bool = True) -> Iterator[SideResult[T]]:
    """``task`` run by a forked child while the block runs. Leaving the block waits for the
    child (``SideResult.result`` is where its exception is raised). ``fork`` False: the caller
    does not want the child (``task`` runs here when its result is asked for)."""
    if not fork or not can_fork_side_process():
        yield SideResult(None, task)
        return
    global _TASK
    _TASK = task
    for stream in (sys.stdout, sys.stderr):  # else the child would write their buffers again
        stream.flush()
    try:
        pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
        # A fork-context pool forks its worker within this first submit.
        future = pool.submit(_run_task)
    finally:
        _TASK = None
    with pool:
        yield SideResult(future, task)


def can_fork_side_process() -> bool:
    """Whether a forked child would run beside this process: the platform forks, at least two
    cores are free to this process, and ``POLISTEMICS_SIDE_PROCESS=off`` does not ask
    otherwise."""
    if os.environ.get("POLISTEMICS_SIDE_PROCESS", "").strip().lower() == "off":
        return False
    if "fork" not in multiprocessing.get_all_start_methods():
        return False
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) >= 2


def _run_task() -> object:
    assert _TASK is not None, "the side process's function is set before the fork"
    return _TASK()

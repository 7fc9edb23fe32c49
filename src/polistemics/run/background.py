"""Work that writes files in a forked child process, on the other core, while this one goes on.

A forked child sees this process's memory as it was at the fork, so it needs no copy of the
data: it writes files and may send back a small (picklable) value. Its error is raised in the
parent, where it waits for the work, with the child's traceback as the cause. Where no child
can be forked safely (not Linux, or other threads running: their locks would be copied held),
the work runs in this process when its result is first asked for, as if it had never been
moved.
"""

from __future__ import annotations

import logging
import multiprocessing
import pickle
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)


def can_fork() -> bool:
    """Linux, and no other thread running (see the module docstring)."""
    return (
        sys.platform == "linux"
        and "fork" in multiprocessing.get_all_start_methods()
        and threading.active_count() == 1
    )


class BackgroundWork(Generic[T]):
    """``work`` started in a child process (``fork=True``) or held until ``result`` is asked."""

    def __init__(self, work: Callable[[], T], *, fork: bool):
        self._work: Callable[[], T] | None = work
        self._process: BaseProcess | None = None
        self._value: T
        self._outcome: Connection
        if fork:
            context = multiprocessing.get_context("fork")
            self._outcome, outcome = context.Pipe(duplex=False)
            self._process = context.Process(
                target=_report_outcome, args=(work, outcome), name="polistemics-writer", daemon=True
            )
            self._process.start()
            outcome.close()

    def result(self) -> T:
        """Wait for the work (or do it, without a child) and return its value or raise its
        error; later calls return the same value."""
        work, self._work = self._work, None
        if work is not None:
            process = self._process
            self._value = work() if process is None else _value_of(self._wait(process), process)
        return self._value

    def abandon(self) -> None:
        """After a failure elsewhere: wait for a running child, whatever its outcome; work that
        has not started never will."""
        work, self._work = self._work, None
        if work is not None and self._process is not None:
            self._wait(self._process)

    def _wait(self, process: BaseProcess) -> object:
        """What the child sent (None: nothing), once it has ended."""
        try:
            return self._outcome.recv()
        except EOFError:  # the child ended without a word (killed, out of memory)
            return None
        finally:
            self._outcome.close()
            process.join()


def _value_of(outcome: object, process: BaseProcess) -> Any:
    """The value a finished child sent, or its error raised."""
    if isinstance(outcome, _Failure):
        raise outcome.error() from ChildTraceback(outcome.trace)
    if not isinstance(outcome, _Done) or process.exitcode != 0:
        raise RuntimeError(f"the background process ended with code {process.exitcode}")
    return outcome.value


@dataclass(frozen=True)
class _Done:
    value: object


class _Failure:
    """An error in the child, as it travels to the parent: pickled when it can be, and as text."""

    def __init__(self, exc: BaseException):
        self.trace = "".join(traceback.format_exception(exc))
        self.text = f"{type(exc).__name__}: {exc}"
        try:
            self.pickled: bytes | None = pickle.dumps(exc)
            pickle.loads(self.pickled)  # some errors pickle but cannot be rebuilt
        except Exception:  # noqa: BLE001 - then the text stands in for it
            self.pickled = None

    def error(self) -> BaseException:
        return pickle.loads(self.pickled) if self.pickled else RuntimeError(self.text)


def _report_outcome(work: Callable[[], object], outcome: Connection) -> None:
    """In the child: run ``work`` and send its ``_Done`` value, or its ``_Failure``."""
    try:
        value = work()
    except BaseException as exc:  # noqa: BLE001 - every failure goes to the parent
        outcome.send(_Failure(exc))
        sys.exit(1)
    outcome.send(_Done(value))


class ChildTraceback(Exception):
    """Where the background work failed: the traceback in the child process."""

    def __init__(self, trace: str):
        super().__init__(f"\n{trace}")


@contextmanager
def in_background(
    work: Callable[[], T], *, fork: bool | None = None
) -> Iterator[BackgroundWork[T]]:
    """``work`` in a forked child while the block runs (``fork``: default ``can_fork()``).

    The block calls ``result()`` where it needs the work done; leaving the block waits for it
    too, so no child outlives the block. If the block fails, its error is the one raised.
    """
    fork = can_fork() if fork is None else fork
    if not fork:
        log.debug("no child process for %s: it runs when its result is needed", work)
    job = BackgroundWork(work, fork=fork)
    try:
        yield job
    except BaseException:
        job.abandon()
        raise
    job.result()

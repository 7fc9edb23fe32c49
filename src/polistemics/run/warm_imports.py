"""The finish's libraries imported by a background thread while the model stages run.

Everything after a study's last call adds to its wall time, and the finish begins by importing
the scores' and the report's libraries (pandas, Polars, matplotlib, jinja2, scipy, statsmodels):
about 1.4 s of a paper-scale run's finish on a 2-core machine. During the model stages the
process mostly waits on the network, so a thread imports them there instead: the finish then
finds them loaded. Python's import locks make a module that the main thread asks for while the
thread is importing it wait for that import, never load twice.

A failed import is left to the finish, which imports the same modules and reports the error in
its own place.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

# What ``run.finish`` imports first (the report and the scores' tables), and what the streamed
# tally loads on its first chunk (Polars).
FINISH_MODULES = (
    "polistemics.report.build",
    "polistemics.report.content",
    "polistemics.report.run_inputs",
    "polistemics.scoring.verdict_engine",
    "polars",
)


@contextmanager
def imported_meanwhile(modules: Sequence[str] = FINISH_MODULES) -> Iterator[None]:
    """``modules`` imported by a daemon thread while the block runs; leaving the block waits for
    the thread (its imports are needed next anyway)."""
    thread = threading.Thread(
        target=_import_each, args=(tuple(modules),), name="polistemics-imports", daemon=True
    )
    thread.start()
    try:
        yield
    finally:
        thread.join()


def _import_each(modules: tuple[str, ...]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # the finish imports it again and raises there
            return

"""The scoring of a large study in a process of its own, whose memory goes when it ends
(issue 32).

The streamed tally reads ``judges.jsonl`` 10,000 records at a time. CPython's and glibc's
allocators keep most of the pages those records took after the records are gone: the tally of
the 8x paper-scale study grows a process by about 180 MB, of which about 36 MB is live
afterwards (``tracemalloc``), and the rest of the finish runs on top of that base. Here a
spawned child (a fresh interpreter: it shares no pages with this process, and its peak is its
own) tallies the records and takes the majority; the cells come back pickled (about 30 MB at
8x), and the child's pages go with it.

Not forked: a forked child's pages are this process's (its RSS counts them all), and Polars'
thread pool, once started here, has no threads in a forked child. A spawn costs the child's
imports and the cells' transfer (about 2.5 s at the paper's scale), so a study with fewer
judge records than ``SCORING_PROCESS_MIN_RECORDS`` is scored in this process, as before.
``POLISTEMICS_SCORING_PROCESS=on`` or ``off`` decides for every size. The child scores while
the finish writes the exports, which do not read the scores (``own_process_scoring``).

The child gets the records' file and each item's fields (``verdict_codes.fields_by_key``), not
the items with their evidence, and gives back what this process would have made (the same
function on the same input), except the tally's vote counts: the child makes the panel's
agreement from them (all that the finish reads of them after the majority) and sends that
(``PanelTally.without_counts``). When the streamed tally declines (records not in answer blocks, a
failed check of the panel), it returns None and the caller tallies here, for the error.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypeVar

from polistemics.judging.parsing_figures import ParsingCounts

if TYPE_CHECKING:
    import pandas as pd

    from polistemics.runlog.spool import SpooledJudgeRecords
    from polistemics.scoring.verdicts import MajorityResult

# About 2.4 times the paper-scale study's 106,047 judge records. There, scored in the child,
# the finish peaked at 382 MB against 423 MB, and its scores took 6.5 s against 4.0-4.3 s (the
# child's imports and the cells sent back): seconds that every run after its last call pays,
# for memory that is not yet its limit. At 8x (853,317 records) the whole paper-scale run
# peaked at 533 MB with the child, 1.27 times the 1x run's 419 MB (issue 32 asks for 1.3).
SCORING_PROCESS_MIN_RECORDS = 250_000

T = TypeVar("T")

_SWITCH = "POLISTEMICS_SCORING_PROCESS"


def wants_scoring_process(n_records: int) -> bool:
    """Whether a study with this many judge records is scored in a process of its own: by
    size, unless ``POLISTEMICS_SCORING_PROCESS`` says ``on`` or ``off``."""
    switch = os.environ.get(_SWITCH, "").strip().lower()
    if switch in ("on", "off"):
        return switch == "on"
    return n_records >= SCORING_PROCESS_MIN_RECORDS


@dataclass(frozen=True)
class ScoringInput:
    """What the scoring reads: the judge records' file, each item's fields by its key
    (``verdict_codes.fields_by_key``), ``verdict_table.item_metadata`` of the items, and the
    panel's size."""

    records: SpooledJudgeRecords
    fields: dict[str, tuple]
    metadata: pd.DataFrame | None
    panel_size: int


def own_process_scoring(
    scoring: ScoringInput,
) -> AbstractContextManager[Future[tuple[MajorityResult, ParsingCounts] | None]]:
    """``score_records`` started in a spawned child while the block runs (``Future.result``
    waits for it and raises its exception); leaving the block waits for the child. The records'
    file must stay where it is meanwhile (an open file would survive a rename, a path does
    not)."""
    return in_own_process(_score_without_counts, scoring)


@contextmanager
def in_own_process(function: Callable[..., T], *args: object) -> Iterator[Future[T]]:
    """``function(*args)`` in a spawned child while the block runs; leaving the block waits for
    it. The child ends itself when this process has gone (killed: SIGTERM or SIGKILL run no
    clean-up here) instead of working on for nobody (``_end_with_parent``)."""
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        1, mp_context=spawn, initializer=_end_with_parent, initargs=(os.getpid(),)
    ) as pool:
        yield pool.submit(function, *args)


def _end_with_parent(parent: int, every_seconds: float = 0.5) -> None:
    """In the child: a thread that ends the process once its parent is no longer ``parent``
    (the orphan is taken over by init or a subreaper)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every_seconds)
        os._exit(1)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


def _score_without_counts(scoring: ScoringInput) -> tuple[MajorityResult, ParsingCounts] | None:
    """``score_records``, its tally's agreement made here and its vote counts (about 35 MB at
    8x, read only for the agreement after the majority) left out of what is sent back."""
    scored = score_records(scoring)
    if scored is None:
        return None
    majority, counts = scored
    return replace(majority, tally=majority.tally.without_counts()), counts


def score_records(scoring: ScoringInput) -> tuple[MajorityResult, ParsingCounts] | None:
    """The majority of the streamed tally of the records, with the judges' parsing figures
    counted in the same pass; None when the streamed tally declines."""
    from polistemics.scoring.verdict_engine import streamed_tally
    from polistemics.scoring.verdicts import majority_of

    counts = ParsingCounts()
    chunks = counts.counting(scoring.records.chunks())
    tally = streamed_tally(chunks, scoring.fields, scoring.panel_size)
    if tally is None:
        return None
    return majority_of(tally, scoring.metadata), counts

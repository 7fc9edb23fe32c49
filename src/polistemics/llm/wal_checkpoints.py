"""Copy the run store's write-ahead log into the database off the call writer's thread.

In WAL mode SQLite appends each commit to a log beside the database. By default the committing
connection copies the log into the database (a checkpoint) once the log holds 1,000 pages, and
that copy syncs both files to disk. At paper scale a run appends about 600,000 pages, so the call
writer stopped some 600 times (1,110 of its commits took over 5 ms, 13.7 s in all), and every
call waiting for its commit kept its concurrency slot meanwhile (docs/benchmarks.md#session-20).

Here the writer's connection makes no checkpoint. A thread of its own, with its own connection,
makes one after every ``CALLS_PER_CHECKPOINT`` committed calls, in SQLite's ``PASSIVE`` mode (it
waits for no reader or writer). Such a checkpoint cannot copy the pages committed while it runs,
and SQLite starts the log afresh only once every page of it has been copied: left to the thread
alone, the log grew to 2.48 GB at paper scale. So once the log holds ``RESET_FRAMES`` pages, the
writer itself copies the few pages the thread's last checkpoint left, between two commits, and
its next commit starts the log again. The thread makes no checkpoint while that copy is due, and
a copy that meets another connection's checkpoint is tried again after the next commit.

The thread can fall behind: on a loaded machine it waited while the log grew to 20 times its
limit (docs/benchmarks.md#session-24). So the writer does not rely on it alone. SQLite truncates
the log's file to ``journal_size_limit`` (set to ``RESET_FRAMES`` pages) when the log restarts,
so the file's size passes twice that limit only when the log does. At each of the thread's turns
the writer looks at that size, and past it makes the copy itself (``overdue``), all of it if the
thread has copied nothing. Should the thread or the writer's copy fail, the writer's connection
goes back to SQLite's own checkpoints; nothing here raises into the writer.

SQLite has no scheduler for checkpoints beyond the automatic one; this module only decides who
calls its ``wal_checkpoint`` and when.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from pathlib import Path

from polistemics.llm.store import connect

CALLS_PER_CHECKPOINT = 500  # about 3,000 pages of log: a checkpoint every half second at 1,000/s
RESET_FRAMES = 32_768  # pages (128 MiB at SQLite's 4 KiB) before the writer restarts the log
SQLITE_AUTOCHECKPOINT = 1_000  # SQLite's default, back in force once anything here has failed
OVERDUE_FACTOR = 2  # a log this many times RESET_FRAMES long: the writer copies without the thread


class WalCheckpoints:
    """The checkpoints of one writer's connection (see the module doc).

    The writer calls ``start`` after opening its connection, ``committed`` after each commit
    and ``stop`` before closing it; nothing else touches its connection."""

    def __init__(
        self,
        path: Path,
        *,
        calls_per_checkpoint: int = CALLS_PER_CHECKPOINT,
        reset_frames: int = RESET_FRAMES,
    ):
        self.path = Path(path)
        self.calls_per_checkpoint = calls_per_checkpoint
        self.reset_frames = reset_frames
        self.checkpoints = 0  # made by the thread
        self.restarts = 0  # the writer's copies of what was left, each restarting the log
        self.overdue = 0  # of those, the ones the writer began itself: the thread had fallen behind
        self.error: sqlite3.Error | None = None  # what failed: the thread's or the writer's copy
        self._due = threading.Event()  # set by the writer: the thread's turn
        self._restart_due = threading.Event()  # set by the thread: the writer's turn
        self._stopping = False
        self._uncopied_calls = 0
        self._fallen_back = False
        self._log_file = self.path.with_name(self.path.name + "-wal")
        self._overdue_bytes: int | None = None  # set by ``start`` from the page size
        self._thread = threading.Thread(target=self._run, name="wal-checkpoints", daemon=True)

    def start(self, writer: sqlite3.Connection) -> None:
        try:
            (page_size,) = writer.execute("PRAGMA page_size").fetchone()
            limit_bytes = self.reset_frames * page_size
            writer.execute(f"PRAGMA journal_size_limit={limit_bytes}")
            writer.execute("PRAGMA wal_autocheckpoint=0")
        except sqlite3.Error as exc:  # SQLite's own checkpoints stay
            self.error, self._fallen_back = exc, True
            return
        self._overdue_bytes = OVERDUE_FACTOR * limit_bytes
        self._thread.start()

    def committed(self, writer: sqlite3.Connection, calls: int) -> None:
        """After the writer's commit of ``calls`` calls: the thread's turn every
        ``calls_per_checkpoint`` calls (or the writer's own copy, if the log has outgrown its
        limit), and the writer's copy when due. Never raises: the writer's callers wait on it."""
        if self.error is not None:
            if not self._fallen_back:
                self._fallen_back = True
                with contextlib.suppress(sqlite3.Error):
                    writer.execute(f"PRAGMA wal_autocheckpoint={SQLITE_AUTOCHECKPOINT}")
            return
        self._uncopied_calls += calls
        if self._uncopied_calls >= self.calls_per_checkpoint:
            self._uncopied_calls = 0
            if not self._restart_due.is_set() and self._log_outgrown():
                self.overdue += 1
                self._restart_due.set()  # the writer's copy, now, whatever the thread has done
            else:
                self._due.set()
        if self._restart_due.is_set():
            try:
                busy, _, _ = writer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            except sqlite3.Error as exc:  # SQLite's own checkpoints take over
                self.error = exc
                return
            # Busy: another connection's checkpoint was running. Left due, the copy is tried
            # again after the next commit; dropped, the log grew until the thread's next turn.
            if not busy:
                self._restart_due.clear()
                self.restarts += 1

    def _log_outgrown(self) -> bool:
        """Whether the log is longer than ``OVERDUE_FACTOR`` times its limit (see the module doc)."""
        try:
            size = os.stat(self._log_file).st_size
        except OSError:  # no log yet
            return False
        return self._overdue_bytes is not None and size > self._overdue_bytes

    def stop(self) -> None:
        """Make a last checkpoint of everything committed, and end the thread."""
        if not self._thread.is_alive():
            return
        self._stopping = True
        self._due.set()
        self._thread.join()

    def _run(self) -> None:
        try:
            db = connect(self.path)
        except sqlite3.Error as exc:
            self.error = exc
            return
        try:
            while True:
                self._due.wait()
                self._due.clear()
                stopping = self._stopping  # read first: the last checkpoint follows the last commit
                if self._restart_due.is_set() and not stopping:
                    continue  # the writer's copy is due; one of ours now would only block it
                _, log_frames, _ = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                self.checkpoints += 1
                if stopping:
                    return
                if log_frames >= self.reset_frames:
                    self._restart_due.set()
        except sqlite3.Error as exc:  # a full disk, say: SQLite's own checkpoints take over
            self.error = exc
        finally:
            db.close()

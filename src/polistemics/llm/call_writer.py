"""Commit finished calls to the run store from a background thread, in groups.

At paper scale a run finishes ~1,000 calls a second. Compressing each prompt and committing each
call on the event loop's thread cost more CPU than the HTTP work. Here a writer thread with its
own SQLite connection takes every call queued since its last commit and commits them in one
transaction (zlib and SQLite release the GIL, so this runs on another core); copying the
write-ahead log into the database is left to a thread of its own (``wal_checkpoints``). A
caller's ``put`` returns only once its call is committed, so nothing downstream ever acts on a
result that a crash could lose: resuming after SIGKILL repeats no call that a later stage has
used. The client keeps a call's concurrency slot until ``put`` returns, so the calls a SIGKILL
loses (sent, not yet committed) never outnumber the calls in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
from pathlib import Path

from polistemics.llm.store import INSERT_CALL, FinishedCall, call_row, connect
from polistemics.llm.wal_checkpoints import WalCheckpoints

_STOP = None  # queued by close(): commit what came before, then end the thread
_Entry = tuple[FinishedCall, "asyncio.Future[None]"]


class CallWriter:
    """The run store's one write path for finished calls (see the module doc)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.commits = 0  # transactions so far (calls / commits = mean group size)
        self._queue: queue.SimpleQueue[list[_Entry] | None] = queue.SimpleQueue()
        # Calls put since the event loop last handed them to the thread: handed over together
        # once per turn of the loop, so that the thread is woken once for all of them.
        self._pending: list[_Entry] = []
        self._closed = False
        self._thread: threading.Thread | None = None

    async def put(self, call: FinishedCall) -> None:
        """Queue one finished call and wait until it is committed."""
        if self._closed:
            raise RuntimeError("CallWriter is closed")
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="call-writer", daemon=True)
            self._thread.start()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        if not self._pending:
            loop.call_soon(self._hand_over)
        self._pending.append((call, future))
        # A cancelled caller's call is still committed: it is queued already, and the thread
        # leaves a cancelled future as it is.
        await future

    def _hand_over(self) -> None:
        pending, self._pending = self._pending, []
        if pending:
            self._queue.put(pending)

    def close(self) -> None:
        """Commit what is queued and stop the thread."""
        self._closed = True
        self._hand_over()  # calls whose loop ended before its turn came
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        db = connect(self.path)
        checkpoints = WalCheckpoints(self.path)
        try:
            checkpoints.start(db)
            stopping = False
            while not stopping:
                handed = [self._queue.get()]  # wait for the first, then take all that queued up
                with contextlib.suppress(queue.Empty):
                    while True:
                        handed.append(self._queue.get_nowait())
                stopping = _STOP in handed
                batch = [entry for entries in handed if entries is not _STOP for entry in entries]
                if batch:
                    error = self._commit(db, [call for call, _ in batch])
                    self._resolve([future for _, future in batch], error)
                    checkpoints.committed(db, len(batch))
        finally:
            checkpoints.stop()
            db.close()

    def _commit(self, db: sqlite3.Connection, calls: list[FinishedCall]) -> BaseException | None:
        try:
            rows = [call_row(call) for call in calls]
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(INSERT_CALL, rows)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        except Exception as exc:  # reported to every waiting caller
            return exc
        self.commits += 1
        return None

    def _resolve(self, futures: list[asyncio.Future[None]], error: BaseException | None) -> None:
        """Settle the callers' futures on their own event loops (one hand-over per loop)."""
        by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
        for future in futures:
            by_loop.setdefault(future.get_loop(), []).append(future)
        for loop, waiting in by_loop.items():
            with contextlib.suppress(RuntimeError):  # that loop has closed: nobody is waiting
                loop.call_soon_threadsafe(_settle, waiting, error)


def _settle(futures: list[asyncio.Future[None]], error: BaseException | None) -> None:
    for future in futures:
        if future.done():
            continue
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)

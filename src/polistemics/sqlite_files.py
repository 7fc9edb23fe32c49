"""Opening the project's SQLite files (the run store, the annotation store) in WAL mode.

Processes that open one new file at once (a study's workers sharing a store, say) race to
switch it to WAL. SQLite answers the losers ``SQLITE_BUSY`` at once, without calling its busy
handler, so the connection's timeout does not cover it: of 40 trials in which six processes
opened a new run store together, 4 in one run and 20 in the next had a process fail with
"database is locked". ``wal_connection`` tries the switch again meanwhile; by then the file is
usually in WAL mode already (a mode SQLite keeps in the file), and the pragma needs no lock.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Literal

BUSY_SECONDS = 60  # how long a connection waits for a lock that another connection holds
WAL_RETRY_SECONDS = 0.005


def wal_connection(path: Path, *, synchronous: Literal["NORMAL", "FULL"]) -> sqlite3.Connection:
    """A connection to ``path`` in WAL mode (readers never block the writer, nor the writer
    readers), with autocommit, the busy timeout, and ``synchronous``."""
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=BUSY_SECONDS)
    try:
        _enter_wal(db)
        db.execute(f"PRAGMA synchronous={synchronous}")
        db.execute(f"PRAGMA busy_timeout={BUSY_SECONDS * 1000}")
    except BaseException:
        db.close()
        raise
    return db


def _enter_wal(db: sqlite3.Connection) -> None:
    deadline = time.monotonic() + BUSY_SECONDS
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            busy = exc.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY  # any of its variants
            if not busy or time.monotonic() > deadline:
                raise
        time.sleep(WAL_RETRY_SECONDS)

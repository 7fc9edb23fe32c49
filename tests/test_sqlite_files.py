"""The project's SQLite files open in WAL mode, also when several processes open one at once."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from contextlib import closing
from pathlib import Path

import pytest

from polistemics import sqlite_files
from polistemics.sqlite_files import wal_connection

PROCESSES = 6
TRIALS = 40  # before the retry, 4 and 20 of 40 such trials had a process fail (two runs)


def open_when_all_are_ready(path: str, ready: threading.Barrier) -> str:  # a manager's proxy
    ready.wait()
    try:
        wal_connection(Path(path), synchronous="NORMAL").close()
    except sqlite3.Error as exc:
        return f"{type(exc).__name__}: {exc}"
    return ""


def test_processes_that_open_one_new_file_at_once_all_get_it(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    failures = []
    with context.Manager() as manager, context.Pool(PROCESSES) as pool:
        for trial in range(TRIALS):
            ready = manager.Barrier(PROCESSES)
            path = str(tmp_path / f"{trial}.sqlite")
            failures += pool.starmap(open_when_all_are_ready, [(path, ready)] * PROCESSES)
    assert [f for f in failures if f] == []
    modes = set()
    for path in tmp_path.glob("*.sqlite"):
        with closing(sqlite3.connect(path)) as db:
            modes.add(db.execute("PRAGMA journal_mode").fetchone())
    assert modes == {("wal",)}


class Busy:
    """A connection whose switch to WAL meets another connection's lock ``times`` times."""

    def __init__(self, times: int, code: int = sqlite3.SQLITE_BUSY) -> None:
        self.times, self.code, self.tries = times, code, 0

    def execute(self, sql: str) -> None:
        self.tries += 1
        if self.tries <= self.times:
            error = sqlite3.OperationalError("database is locked")
            error.sqlite_errorcode = self.code
            raise error


def test_the_switch_is_tried_again_while_the_file_is_busy() -> None:
    db = Busy(times=3, code=261)  # SQLITE_BUSY_RECOVERY: another process recovers the log
    sqlite_files._enter_wal(db)  # type: ignore[arg-type]
    assert db.tries == 4


def test_other_errors_and_a_lock_held_too_long_are_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(sqlite3.OperationalError):
        sqlite_files._enter_wal(Busy(times=1, code=sqlite3.SQLITE_IOERR))  # type: ignore[arg-type]
    monkeypatch.setattr(sqlite_files, "BUSY_SECONDS", 0.02)
    db = Busy(times=1_000_000)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        sqlite_files._enter_wal(db)  # type: ignore[arg-type]
    assert 1 < db.tries < 1_000


def test_the_connection_has_the_project_settings(tmp_path: Path) -> None:
    db = wal_connection(tmp_path / "a.sqlite", synchronous="FULL")
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert db.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL
    assert db.execute("PRAGMA busy_timeout").fetchone() == (sqlite_files.BUSY_SECONDS * 1000,)
    assert db.isolation_level is None
    db.close()

"""Checkpoints off the call writer's thread: the log stays short while calls are committed."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from polistemics.llm import call_writer, wal_checkpoints
from polistemics.llm.call_writer import CallWriter
from polistemics.llm.keys import canonical_json
from polistemics.llm.store import FinishedCall, RunStore
from polistemics.llm.types import CallResult
from polistemics.llm.wal_checkpoints import WalCheckpoints

PAGE = 4096  # SQLite's default page size


def a_call(i: int) -> FinishedCall:
    text = f"answer {i} " * 400  # several pages a call
    result = CallResult(key=f"k{i:05d}", endpoint="e", model="m", status="ok", text=text)
    messages = [{"role": "user", "content": f"question {i}"}]
    return FinishedCall(result, "answers", f"h{i}", "{}", 0, canonical_json(messages))


def commit_calls_watching_the_log(path: Path, calls: int) -> int:
    """Commit ``calls`` calls in a stream (each waits for its commit, 16 at once), and return
    the log's largest size on disk meanwhile (SQLite reuses the file from its start)."""
    RunStore(path).close()
    writer = CallWriter(path)
    wal = path.with_name(path.name + "-wal")
    largest = 0

    async def main() -> None:
        nonlocal largest
        queue = list(range(calls))

        async def worker() -> None:
            nonlocal largest
            while queue:
                await writer.put(a_call(queue.pop()))
                largest = max(largest, wal.stat().st_size if wal.exists() else 0)

        await asyncio.gather(*(worker() for _ in range(16)))

    asyncio.run(main())
    writer.close()
    with RunStore(path) as store:
        assert store.count_calls() == calls
    return largest


def small_limits(monkeypatch: pytest.MonkeyPatch, *, restart: bool = True) -> None:
    def checkpoints(path: Path) -> WalCheckpoints:
        made = WalCheckpoints(path, calls_per_checkpoint=20, reset_frames=100)
        if not restart:
            made.reset_frames = 1 << 62
        return made

    monkeypatch.setattr(call_writer, "WalCheckpoints", checkpoints)


def test_the_log_stays_short_while_calls_are_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small_limits(monkeypatch)
    largest = commit_calls_watching_the_log(tmp_path / "store.sqlite", 3_000)
    # 100 pages before a restart, the pages of the calls committed until then, a little more
    assert largest < 1_000 * PAGE, f"the log reached {largest / PAGE:.0f} pages"


def test_the_thread_alone_lets_the_log_grow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Why the writer restarts the log itself: checkpoints beside a busy writer never copy it
    all, and SQLite starts a log afresh only once it has been copied all."""
    small_limits(monkeypatch, restart=False)
    largest = commit_calls_watching_the_log(tmp_path / "store.sqlite", 3_000)
    assert largest > 1_500 * PAGE


def test_a_failed_thread_hands_the_checkpoints_back_to_sqlite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "store.sqlite"
    RunStore(path).close()

    def unreachable(_: Path) -> sqlite3.Connection:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(wal_checkpoints, "connect", unreachable)
    writer = sqlite3.connect(path, isolation_level=None)
    checkpoints = WalCheckpoints(path)
    checkpoints.start(writer)
    assert writer.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    checkpoints.stop()
    checkpoints.committed(writer, 1)
    assert isinstance(checkpoints.error, sqlite3.OperationalError)
    assert writer.execute("PRAGMA wal_autocheckpoint").fetchone() == (1_000,)
    writer.close()


class FailingCheckpoints:
    """A writer's connection whose own checkpoints fail (a full disk, say)."""

    def __init__(self) -> None:
        self.statements: list[str] = []

    def execute(self, sql: str) -> sqlite3.Cursor:
        self.statements.append(sql)
        if "wal_checkpoint(" in sql:
            raise sqlite3.OperationalError("disk I/O error")
        return sqlite3.connect(":memory:").execute("SELECT 0")


def test_a_failed_copy_by_the_writer_hands_the_checkpoints_back_to_sqlite(tmp_path: Path) -> None:
    """The writer's own copy must not raise: its callers wait on the writer's thread."""
    path = tmp_path / "store.sqlite"
    RunStore(path).close()
    writer = FailingCheckpoints()
    checkpoints = WalCheckpoints(path)
    checkpoints.start(writer)  # type: ignore[arg-type]
    checkpoints._restart_due.set()  # the thread has copied a long log
    checkpoints.committed(writer, 1)  # type: ignore[arg-type]
    assert isinstance(checkpoints.error, sqlite3.OperationalError)
    checkpoints.committed(writer, 1)  # type: ignore[arg-type]
    checkpoints.stop()
    assert writer.statements == [
        "PRAGMA wal_autocheckpoint=0",
        "PRAGMA wal_checkpoint(PASSIVE)",
        "PRAGMA wal_autocheckpoint=1000",
    ]

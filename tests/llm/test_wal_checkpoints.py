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


def small_limits(
    monkeypatch: pytest.MonkeyPatch, *, checkpoints: bool = True
) -> list[WalCheckpoints]:
    """Make the writer's checkpoints small, and return them as made."""
    made_so_far: list[WalCheckpoints] = []

    def made(path: Path) -> WalCheckpoints:
        if not checkpoints:  # neither the thread's turns nor the writer's restarts
            # (1 << 40 pages: its journal_size_limit in bytes must still fit SQLite's 64 bits)
            made_so_far.append(
                WalCheckpoints(path, calls_per_checkpoint=1 << 62, reset_frames=1 << 40)
            )
        else:
            made_so_far.append(WalCheckpoints(path, calls_per_checkpoint=20, reset_frames=100))
        return made_so_far[-1]

    monkeypatch.setattr(call_writer, "WalCheckpoints", made)
    return made_so_far


def test_the_log_stays_short_while_calls_are_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small_limits(monkeypatch)
    largest = commit_calls_watching_the_log(tmp_path / "store.sqlite", 3_000)
    # 100 pages before a restart, the pages of the calls committed until then, a little more:
    # about 250 seen; the writer's own copy past 200 pages holds it when the thread falls behind
    assert largest < 1_000 * PAGE, f"the log reached {largest / PAGE:.0f} pages"


def test_the_log_stays_short_with_a_thread_that_never_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A loaded machine kept the thread waiting while the log grew to 2,030 pages (CI, four test
    workers on two cores); here it never runs at all, and the writer copies the log itself."""
    made = small_limits(monkeypatch)
    monkeypatch.setattr(WalCheckpoints, "_run", lambda self: None)
    largest = commit_calls_watching_the_log(tmp_path / "store.sqlite", 3_000)
    assert largest < 1_000 * PAGE, f"the log reached {largest / PAGE:.0f} pages"
    (checkpoints,) = made
    assert checkpoints.checkpoints == 0
    assert checkpoints.overdue == checkpoints.restarts > 0


def test_without_checkpoints_the_log_passes_that_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bound above can fail, twice over: each call adds about two pages to a log nobody
    copies (about 5,000 seen).

    (Left to the thread alone, the log also grows, since a checkpoint beside a busy writer never
    copies it all; but how far depends on how busy the machine is, so no test asserts it.)"""
    small_limits(monkeypatch, checkpoints=False)
    largest = commit_calls_watching_the_log(tmp_path / "store.sqlite", 3_000)
    assert largest > 3_000 * PAGE, f"the log reached only {largest / PAGE:.0f} pages"


class Connection:
    """A writer's connection whose checkpoints answer as told (or fail: a full disk, say)."""

    def __init__(self, *answers: tuple[int, int, int] | sqlite3.Error) -> None:
        self.answers = list(answers)
        self.statements: list[str] = []

    def execute(self, sql: str) -> sqlite3.Cursor:
        self.statements.append(sql)
        if sql == "PRAGMA page_size":
            return sqlite3.connect(":memory:").execute("SELECT ?", (PAGE,))
        if "wal_checkpoint(" not in sql:
            return sqlite3.connect(":memory:").execute("SELECT 0")
        answer = self.answers.pop(0)
        if isinstance(answer, sqlite3.Error):
            raise answer
        return sqlite3.connect(":memory:").execute("SELECT ?, ?, ?", answer)


def test_a_copy_that_meets_another_checkpoint_is_tried_again_after_the_next_commit(
    tmp_path: Path,
) -> None:
    """SQLite answers busy when another connection's checkpoint is running. Dropping the copy
    then let the log grow until the thread's next turn (2,850 pages in a loaded CI run)."""
    path = tmp_path / "store.sqlite"
    RunStore(path).close()
    writer = Connection((1, -1, -1), (0, 300, 300))
    checkpoints = WalCheckpoints(path)
    checkpoints.start(writer)  # type: ignore[arg-type]
    checkpoints._restart_due.set()  # the thread has copied a long log
    checkpoints.committed(writer, 1)  # type: ignore[arg-type]
    assert (checkpoints.restarts, checkpoints._restart_due.is_set()) == (0, True)
    checkpoints.committed(writer, 1)  # type: ignore[arg-type]
    assert (checkpoints.restarts, checkpoints._restart_due.is_set()) == (1, False)
    checkpoints.committed(writer, 1)  # type: ignore[arg-type]
    checkpoints.stop()
    assert checkpoints.error is None
    assert writer.statements.count("PRAGMA wal_checkpoint(PASSIVE)") == 2


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


def test_a_failed_copy_by_the_writer_hands_the_checkpoints_back_to_sqlite(tmp_path: Path) -> None:
    """The writer's own copy must not raise: its callers wait on the writer's thread."""
    path = tmp_path / "store.sqlite"
    RunStore(path).close()
    writer = Connection(sqlite3.OperationalError("disk I/O error"))
    checkpoints = WalCheckpoints(path)
    checkpoints.start(writer)  # type: ignore[arg-type]
    checkpoints._restart_due.set()  # the thread has copied a long log
    checkpoints.committed(writer, 1)  # type: ignore[arg-type]
    assert isinstance(checkpoints.error, sqlite3.OperationalError)
    checkpoints.committed(writer, 1)  # type: ignore[arg-type]
    checkpoints.stop()
    assert writer.statements == [
        "PRAGMA page_size",
        f"PRAGMA journal_size_limit={wal_checkpoints.RESET_FRAMES * PAGE}",
        "PRAGMA wal_autocheckpoint=0",
        "PRAGMA wal_checkpoint(PASSIVE)",
        "PRAGMA wal_autocheckpoint=1000",
    ]

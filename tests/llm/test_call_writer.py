"""The background call writer: each put returns once its call is committed, calls share commits."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from polistemics.llm.call_writer import CallWriter
from polistemics.llm.keys import canonical_json
from polistemics.llm.store import FinishedCall, RunStore
from polistemics.llm.types import CallResult


def pending(i: int) -> FinishedCall:
    result = CallResult(key=f"k{i}", endpoint="e", model="m", status="ok", text=f"answer {i}")
    messages = [{"role": "user", "content": f"question {i}"}]
    return FinishedCall(result, "judge", f"h{i}", "{}", 0, canonical_json(messages))


def test_each_put_returns_after_its_commit_and_puts_share_commits(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    RunStore(path).close()  # creates the schema
    writer = CallWriter(path)
    seen_at_return: list[bool] = []

    async def put_and_look(i: int) -> None:
        await writer.put(pending(i))
        with sqlite3.connect(path) as other:  # a separate connection sees the committed row
            row = other.execute("SELECT response_text FROM calls WHERE key = ?", (f"k{i}",))
            seen_at_return.append(row.fetchone() == (f"answer {i}",))

    async def main() -> None:
        await asyncio.gather(*(put_and_look(i) for i in range(200)))

    asyncio.run(main())
    writer.close()
    assert seen_at_return == [True] * 200
    assert 1 <= writer.commits < 200  # grouped: 200 calls did not take 200 transactions
    with RunStore(path) as store:
        assert store.count_calls() == 200
        assert store.call_messages("k7") == [{"role": "user", "content": "question 7"}]


def test_a_failed_commit_reaches_the_caller(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    sqlite3.connect(path).close()  # a database without the calls table
    writer = CallWriter(path)
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        asyncio.run(writer.put(pending(1)))
    writer.close()


def test_writer_serves_successive_event_loops_and_refuses_puts_once_closed(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    RunStore(path).close()
    writer = CallWriter(path)
    asyncio.run(writer.put(pending(1)))
    asyncio.run(writer.put(pending(2)))  # a new loop: its future is settled on that loop
    writer.close()
    with pytest.raises(RuntimeError, match="closed"):
        asyncio.run(writer.put(pending(3)))
    with RunStore(path) as store:
        assert store.count_calls() == 2


def test_calls_put_in_one_turn_of_the_loop_are_handed_over_and_committed_together(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.sqlite"
    RunStore(path).close()
    writer = CallWriter(path)

    async def main() -> None:
        await writer.put(pending(-1))  # the thread runs and waits for the next calls
        await asyncio.gather(*(writer.put(pending(i)) for i in range(200)))  # all in one turn

    asyncio.run(main())
    writer.close()
    assert writer.commits == 2  # then one hand-over, one wake of the thread, one transaction
    with RunStore(path) as store:
        assert store.count_calls() == 201


def test_a_cancelled_caller_s_call_is_still_committed(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    RunStore(path).close()
    writer = CallWriter(path)

    async def main() -> None:
        task = asyncio.ensure_future(writer.put(pending(1)))
        await asyncio.sleep(0)  # the put has queued its call
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await writer.put(pending(2))

    asyncio.run(main())
    writer.close()
    with RunStore(path) as store:
        assert store.count_calls() == 2

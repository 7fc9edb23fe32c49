"""A run killed with SIGKILL resumes without repeating a finished call (issue 2, item 5)."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from polistemics.llm.call_writer import CallWriter
from polistemics.llm.client import LLMClient
from polistemics.llm.keys import messages_hash
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.store import RunStore
from polistemics.testing import FakeOpenAIServer, prompt_key

N_CALLS = 40

WORKER = textwrap.dedent(
    """
    import asyncio, sys
    from polistemics.llm.client import LLMClient, RetryPolicy
    from polistemics.llm.registry import ModelEndpoint
    from polistemics.llm.store import RunStore

    base_url, store_path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    ep = ModelEndpoint(name="fake", model="fake-model", base_url=base_url, max_concurrency=4)

    async def main():
        with RunStore(store_path) as store:
            client = LLMClient(store=store, retry=RetryPolicy(base_delay=0.01))
            await asyncio.gather(*(
                client.complete(ep, [{"role": "user", "content": f"question {i}"}], stage="answers")
                for i in range(n)
            ))
            await client.aclose()

    asyncio.run(main())
    """
)


def start_worker(base_url: str, store_path: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, base_url, str(store_path), str(N_CALLS)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


def stored_count(store_path: Path) -> int:
    if not store_path.exists():
        return 0
    try:
        with sqlite3.connect(store_path, timeout=5) as db:
            return db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
    except sqlite3.OperationalError:
        return 0  # schema not created yet


def records(store_path: Path) -> dict[str, tuple]:
    """Per prompt: status and text (keys differ between servers: the port is part of them)."""
    with sqlite3.connect(store_path) as db:
        rows = db.execute("SELECT messages_hash, status, response_text FROM calls").fetchall()
    return {mh: (status, text) for mh, status, text in rows}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    path = tmp_path_factory.mktemp("full") / "store.sqlite"
    with FakeOpenAIServer(latency=0.02) as server:
        assert start_worker(server.base_url, path).wait(timeout=60) == 0
    return records(path)


@pytest.mark.parametrize("kill_after", [3, 17, 31])
def test_sigkill_then_resume_repeats_no_finished_call(
    tmp_path: Path, uninterrupted: dict[str, tuple], kill_after: int
) -> None:
    store_path = tmp_path / "store.sqlite"
    with FakeOpenAIServer(latency=0.05) as server:
        worker = start_worker(server.base_url, store_path)
        deadline = time.monotonic() + 60
        while stored_count(store_path) < kill_after:
            assert worker.poll() is None, "worker finished before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.005)
        worker.send_signal(signal.SIGKILL)
        worker.wait()

        with RunStore(store_path) as store:
            assert store.integrity_check() == "ok"
        finished = records(store_path)
        assert kill_after <= len(finished) < N_CALLS

        assert start_worker(server.base_url, store_path).wait(timeout=60) == 0
        stats = server.stats()

    final = records(store_path)
    assert final == uninterrupted  # same prompts, statuses, texts as a run never interrupted
    # No prompt whose call had finished before the kill was sent again.
    finished_prompts = set(finished)
    for i in range(N_CALLS):
        messages = [{"role": "user", "content": f"question {i}"}]
        if messages_hash(messages) in finished_prompts:
            assert stats.per_prompt[prompt_key(messages)] == 1, f"question {i} was asked again"
    # After the kill, only unfinished calls were made (plus at most the 4 lost in flight).
    assert stats.requests <= N_CALLS + 4


def test_rerun_of_a_finished_run_makes_zero_requests(tmp_path: Path) -> None:
    store_path = tmp_path / "store.sqlite"
    with FakeOpenAIServer() as server:
        assert start_worker(server.base_url, store_path).wait(timeout=60) == 0
        first = server.stats().requests
        server.reset_stats()
        assert start_worker(server.base_url, store_path).wait(timeout=60) == 0
        assert server.stats().requests == 0
    assert first == N_CALLS
    assert len(records(store_path)) == N_CALLS


def test_concurrent_writers_share_one_store_without_corruption(tmp_path: Path) -> None:
    store_path = tmp_path / "store.sqlite"
    with FakeOpenAIServer(latency=0.01) as server:
        workers = [start_worker(server.base_url, store_path) for _ in range(3)]
        assert [w.wait(timeout=60) for w in workers] == [0, 0, 0]
    with RunStore(store_path) as store:
        assert store.integrity_check() == "ok"
        assert store.count_calls() == N_CALLS  # same prompts: one row each, whoever wrote it


def test_a_call_holds_its_slot_until_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requests sent whose results are not yet committed never outnumber the calls at once, even
    when commits are slow: a SIGKILL at any moment repeats no more calls than were in flight."""
    slow_commit = CallWriter._commit

    def commit(self: CallWriter, db: object, calls: list) -> object:
        time.sleep(0.02)  # a busy disk or a starved writer thread
        return slow_commit(self, db, calls)

    monkeypatch.setattr(CallWriter, "_commit", commit)
    at_once = 4
    uncommitted: list[int] = []
    with FakeOpenAIServer() as server, RunStore(tmp_path / "store.sqlite") as store:
        ep = ModelEndpoint(
            name="fake", model="fake-model", base_url=server.base_url, max_concurrency=at_once
        )

        async def watch(done: asyncio.Event) -> None:
            while not done.is_set():
                sent = server.stats().requests  # read before the count: never overstates
                uncommitted.append(sent - store.count_calls())
                await asyncio.sleep(0.001)

        async def main() -> None:
            client = LLMClient(store=store)
            done = asyncio.Event()
            watcher = asyncio.create_task(watch(done))
            await asyncio.gather(
                *(
                    client.complete(ep, [{"role": "user", "content": f"q {i}"}], stage="answers")
                    for i in range(60)
                )
            )
            done.set()
            await watcher
            await client.aclose()

        asyncio.run(main())
        assert server.stats().requests == store.count_calls() == 60
    assert uncommitted and max(uncommitted) <= at_once

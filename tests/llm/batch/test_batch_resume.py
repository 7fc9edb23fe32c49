"""A client stopped while its batch is open, then a new client with the same store: it awaits
that batch instead of sending its requests again, and a result whose prompt has changed since is
never stored under the new prompt's key."""

from __future__ import annotations

import asyncio
from pathlib import Path

from polistemics.llm.batch.ledger import Ledger
from polistemics.llm.client import LLMClient
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.store import RunStore
from polistemics.testing import FakeOpenAIServer, Rule

from .test_batch_client import FAST, ask, batch_endpoint


async def stop_once_a_batch_is_open(store: RunStore, endpoint: ModelEndpoint, prompts: list[str]):
    """Start the calls, and stop the client as soon as its batch is recorded (as a kill would,
    the batch is left open)."""
    client = LLMClient(store=store, retry=FAST)
    calls = asyncio.gather(*(client.complete(endpoint, ask(p), stage="answers") for p in prompts))
    with Ledger(store.path) as ledger:
        while not ledger.batches(open_only=True):
            await asyncio.sleep(0.01)
    calls.cancel()
    await asyncio.gather(calls, return_exceptions=True)
    await client.aclose()


async def complete(store: RunStore, endpoint: ModelEndpoint, prompts: list[str]):
    client = LLMClient(store=store, retry=FAST)
    try:
        results = await asyncio.gather(
            *(client.complete(endpoint, ask(p), stage="answers") for p in prompts)
        )
        return results, client.batches.counters, client.network_calls
    finally:
        await client.aclose()


def test_a_resumed_client_awaits_the_open_batch(tmp_path: Path) -> None:
    prompts = [f"question {i}" for i in range(5)]
    with (
        FakeOpenAIServer([Rule("question", response="an answer")], batch_latency=0.5) as server,
        RunStore(tmp_path / "store.sqlite") as store,
    ):
        endpoint = batch_endpoint(server)
        asyncio.run(stop_once_a_batch_is_open(store, endpoint, prompts))
        assert store.count_calls() == 0
        results, counters, sent = asyncio.run(complete(store, endpoint, prompts))
        stats = server.batches.stats()
    assert all(r.ok and r.text == "an answer" for r in results)
    assert stats.requests == 5 and set(stats.requests_per_custom_id.values()) == {1}
    assert counters.awaited_open == 5 and counters.requests_sent == 0 and sent == 0
    with Ledger(tmp_path / "store.sqlite") as ledger:
        (row,) = ledger.batches()
        assert row.closed and row.status == "completed"


def test_a_result_for_a_changed_prompt_is_refused(tmp_path: Path) -> None:
    with (
        FakeOpenAIServer(batch_latency=0.3) as server,
        RunStore(tmp_path / "store.sqlite") as store,
    ):
        endpoint = batch_endpoint(server)
        asyncio.run(stop_once_a_batch_is_open(store, endpoint, ["kept prompt", "old prompt"]))
        with Ledger(store.path) as ledger:
            (open_batch,) = ledger.batches(open_only=True)
            old_keys = set(ledger.keys_of(open_batch.batch_id))
        # The prompt was edited before the resume: the new call has another key.
        (kept, new), counters, sent = asyncio.run(
            complete(store, endpoint, ["kept prompt", "new prompt"])
        )
        stored = store.call_keys()
        stats = server.batches.stats()
    assert kept.key in old_keys and new.key not in old_keys
    assert kept.ok and new.ok and sent == 1  # only the new prompt was sent
    assert stats.requests_per_custom_id[new.key] == 1
    assert stored == {kept.key, new.key}  # the old prompt's result is stored under no key
    assert counters.awaited_open == 1 and counters.resubmitted == 0
    with Ledger(tmp_path / "store.sqlite") as ledger:
        status = {row.batch_id: row.closed for row in ledger.batches()}
        unstored = ledger.unstored_keys_of(open_batch.batch_id)
    assert status[open_batch.batch_id] is False  # holds a result nobody asked for
    assert unstored == old_keys - {kept.key}

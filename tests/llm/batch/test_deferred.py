"""Calls handed to the client as data (``LLMClient.defer``): each waits as a journal record, not
a task; its waiter gets its result and context once it is stored, at once when it is stored
already, and the batch API's loss when that comes."""

from __future__ import annotations

import asyncio

import pytest

from polistemics.llm.batch.collector import BatchUnavailable
from polistemics.llm.batch.ledger import Ledger
from polistemics.llm.client import LLMClient
from polistemics.llm.store import RunStore
from polistemics.testing import FakeOpenAIServer, Rule

from .test_batch_client import FAST, ask, batch_endpoint


@pytest.fixture
def store(tmp_path):
    with RunStore(tmp_path / "store.sqlite") as s:
        yield s


class Sink:
    def __init__(self) -> None:
        self.results: dict = {}
        self.errors: list = []

    async def done(self, result, context) -> None:
        self.results[context["n"]] = result

    def failed(self, exc, context) -> None:
        self.errors.append((context["n"], exc))


def defer_all(run_store: RunStore, endpoint, prompts: list[str], seen: dict | None = None) -> Sink:
    sink = Sink()

    async def go():
        client = LLMClient(store=run_store, retry=FAST)
        try:
            for n, prompt in enumerate(prompts):
                await client.defer(
                    endpoint, ask(prompt), stage="judge", waiter=sink, context={"n": n}
                )
            if seen is not None:
                seen["tasks"] = len(asyncio.all_tasks())
                seen["records"] = client.batches.journal.waiting if client.batches else 0
            while len(sink.results) + len(sink.errors) < len(prompts):
                await asyncio.sleep(0.01)
            seen_counters = client.batches.counters if client.batches else None
            if seen is not None:
                seen["counters"] = seen_counters
                seen["account"] = client.counters["judge"]
        finally:
            await client.aclose()

    asyncio.run(go())
    return sink


def test_deferred_calls_wait_as_records_and_their_results_reach_their_waiter(store) -> None:
    prompts = [f"question {i}" for i in range(200)]
    seen: dict = {}
    with FakeOpenAIServer(
        [Rule("question", response=lambda r: r["messages"][0]["content"])]
    ) as server:
        sink = defer_all(store, batch_endpoint(server), prompts, seen)
    assert seen["tasks"] <= 3  # the loop's own and the batch's sender: none per call
    assert seen["records"] == len(prompts)
    assert {n: r.text for n, r in sink.results.items()} == dict(enumerate(prompts))
    assert all(r.ok and not r.cached for r in sink.results.values()) and not sink.errors
    assert store.count_calls() == len(prompts)
    assert seen["account"].done == len(prompts) and seen["account"].cost > 0
    with Ledger(store.path) as ledger:
        assert all(row.closed for row in ledger.batches())


def test_a_stored_call_goes_to_its_waiter_at_once(store) -> None:
    with FakeOpenAIServer() as server:
        endpoint = batch_endpoint(server)
        defer_all(store, endpoint, ["a", "b"])
        sink = defer_all(store, endpoint, ["a", "b"])
        assert sum(server.batches.stats().requests_per_custom_id.values()) == 2
    assert all(r.cached for r in sink.results.values()) and len(sink.results) == 2


def test_an_unreachable_batch_api_is_told_to_every_waiter(store) -> None:
    server = FakeOpenAIServer(batch_latency=5.0).start()
    sink = Sink()

    async def go():
        client = LLMClient(store=store, retry=FAST)
        try:
            for n in range(3):
                await client.defer(
                    batch_endpoint(server),
                    ask(f"q{n}"),
                    stage="judge",
                    waiter=sink,
                    context={"n": n},
                )
            while not server.batches.batches:
                await asyncio.sleep(0.01)
            server.stop()  # the provider goes away while the batch runs
            while len(sink.errors) < 3:
                await asyncio.sleep(0.05)
        finally:
            await client.aclose()

    asyncio.run(go())
    assert sorted(n for n, _ in sink.errors) == [0, 1, 2] and not sink.results
    assert all(isinstance(exc, BatchUnavailable) for _, exc in sink.errors)
    assert store.count_calls() == 0


def test_only_batch_endpoints_take_deferred_calls() -> None:
    from polistemics.llm.registry import ModelEndpoint

    online = ModelEndpoint(name="m", model="fake-model", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ValueError, match="does not run in batches"):
        asyncio.run(LLMClient().defer(online, ask("a"), stage="judge", waiter=Sink()))

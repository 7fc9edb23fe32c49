"""Batch endpoints through the client layer, against the test server's batch API: results,
costs at the batch price, the store, and each scripted batch fault."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from polistemics.llm.batch.collector import BatchUnavailable
from polistemics.llm.batch.ledger import Ledger
from polistemics.llm.client import LLMClient, RetryPolicy
from polistemics.llm.keys import call_key, request_params
from polistemics.llm.registry import ModelEndpoint, RegistryError, parse_registry
from polistemics.llm.store import RunStore
from polistemics.testing import FakeOpenAIServer, Fault, Rule
from polistemics.testing.batch_api import BatchFault

FAST = RetryPolicy(max_attempts=4, content_attempts=2, base_delay=0.01, max_delay=0.05)


def batch_endpoint(server: FakeOpenAIServer, **overrides) -> ModelEndpoint:
    fields = {
        "name": "fake-batch",
        "model": "fake-model",
        "base_url": server.base_url,
        "execution": "batch",
        "batch_flush_seconds": 0.05,
        "batch_poll_seconds": 0.02,
        "price_input_per_mtok": 1.0,
        "price_output_per_mtok": 2.0,
    }
    fields.update(overrides)
    return ModelEndpoint(**fields)


def ask(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def complete_all(store: RunStore | None, endpoint: ModelEndpoint, prompts: list[str]):
    async def go():
        client = LLMClient(store=store, retry=FAST)
        try:
            results = await asyncio.gather(
                *(client.complete(endpoint, ask(p), stage="answers") for p in prompts)
            )
            collector = client.batches
            return results, collector.counters if collector else None
        finally:
            await client.aclose()

    return asyncio.run(go())


@pytest.fixture
def store(tmp_path: Path):
    with RunStore(tmp_path / "store.sqlite") as s:
        yield s


def test_calls_go_in_one_batch_and_are_stored_at_the_batch_price(store: RunStore) -> None:
    prompts = [f"question {i}" for i in range(12)]
    with FakeOpenAIServer([Rule("question", response="an answer")]) as server:
        endpoint = batch_endpoint(server)
        results, counters = complete_all(store, endpoint, prompts)
        stats = server.batches.stats()
        assert server.stats().requests == 12  # every line ran through the chat logic
    assert all(r.ok and r.text == "an answer" for r in results)
    assert stats.batches == {"completed": 1}
    assert set(stats.requests_per_custom_id.values()) == {1}
    assert set(stats.requests_per_custom_id) == {r.key for r in results}
    assert counters.batches == 1 and counters.requests_sent == 12 and counters.resubmitted == 0
    for result in results:
        online = endpoint.estimate_cost(result.input_tokens, result.output_tokens)
        assert result.cost == pytest.approx(online * 0.5) and result.cost > 0
        assert store.get_call(result.key).text == "an answer"
    with Ledger(store.path) as ledger:
        (row,) = ledger.batches()
        assert row.closed and row.status == "completed" and row.requests == 12
        report = ledger.report()
    assert report["execution"]["batch"]["calls"] == 12
    assert report["execution"]["batch"]["cost_usd"] == pytest.approx(
        sum(r.cost for r in results), abs=1e-6
    )
    assert report["batches"]["resubmitted"] == 0


def test_a_reported_cost_is_kept(store: RunStore) -> None:
    with FakeOpenAIServer(usage_cost_per_token=1e-6) as server:
        (result,), _ = complete_all(store, batch_endpoint(server), ["say something"])
    tokens = result.input_tokens + result.output_tokens
    assert result.ok and result.cost == pytest.approx(tokens * 1e-6 * 0.5)


def test_a_stored_call_is_not_sent_again(store: RunStore) -> None:
    with FakeOpenAIServer() as server:
        endpoint = batch_endpoint(server)
        first, _ = complete_all(store, endpoint, ["a", "b"])
        second, counters = complete_all(store, endpoint, ["a", "b"])
        assert sum(server.batches.stats().requests_per_custom_id.values()) == 2
    assert all(r.cached for r in second) and counters is None


def test_a_batch_is_split_at_the_request_limit(store: RunStore) -> None:
    with FakeOpenAIServer() as server:
        results, counters = complete_all(
            store, batch_endpoint(server, batch_max_requests=4), [f"q{i}" for i in range(10)]
        )
        stats = server.batches.stats()
    assert all(r.ok for r in results)
    assert counters.batches == 3 and stats.batches == {"completed": 3}
    assert set(stats.requests_per_custom_id.values()) == {1}


def test_a_batch_is_split_at_the_byte_limit(store: RunStore) -> None:
    prompts = [f"question {i} " + "word " * 200 for i in range(6)]  # about 1.26 kB per line
    with FakeOpenAIServer() as server:
        results, counters = complete_all(
            store, batch_endpoint(server, batch_max_bytes=3000), prompts
        )
        service = server.batches
        inputs = [service.files[b["input_file_id"]] for b in service.batches.values()]
    assert all(r.ok for r in results)
    assert counters.batches == 3  # two lines fit in 3,000 bytes, three do not
    assert all(len(data) <= 3000 and data.count(b"\n") == 2 for data in inputs)


@pytest.mark.parametrize(
    ("fault", "refused"),
    [
        (BatchFault("expire", fraction=0.5), {}),
        (BatchFault("partial_failure", fraction=0.5), {}),
        (BatchFault("malformed_line"), {"malformed": 1}),
        (BatchFault("duplicate_custom_id"), {"duplicate": 2}),
        (BatchFault("unknown_custom_id"), {"unknown": 1}),
    ],
)
def test_a_faulty_batch_resends_only_the_missing_requests(
    store: RunStore, fault: BatchFault, refused: dict
) -> None:
    prompts = [f"question {i}" for i in range(10)]
    with FakeOpenAIServer([Rule("question", response="an answer")], batch_faults=[fault]) as server:
        results, counters = complete_all(store, batch_endpoint(server), prompts)
        stats = server.batches.stats()
    assert all(r.ok and r.text == "an answer" for r in results)  # none mixed into another
    received = stats.requests_per_custom_id
    again = sorted(key for key, n in received.items() if n > 1)
    assert all(n <= 2 for n in received.values())
    assert counters.resubmitted == len(again)
    if fault.kind == "unknown_custom_id":
        assert again == []  # an extra line changes nothing
    else:
        assert 0 < len(again) < len(prompts)
    assert {k: v for k, v in counters.refused_lines.items() if v} == refused
    assert all(result.attempts == 1 + (result.key in again) for result in results)
    with Ledger(store.path) as ledger:
        report = ledger.report()
        assert all(row.closed for row in ledger.batches())
    assert report["batches"]["resubmitted"] == len(again)
    assert report["batches"]["refused_lines"] == {
        "unknown": 0,
        "duplicate": 0,
        "malformed": 0,
        **refused,
    }


def test_a_failed_batch_records_its_reason_for_every_call(store: RunStore) -> None:
    faults = [BatchFault("fail")] * 10
    with FakeOpenAIServer(batch_faults=faults) as server:
        results, _ = complete_all(store, batch_endpoint(server), ["a", "b"])
    assert all(not r.ok and "scripted validation failure" in r.error for r in results)
    assert all(r.attempts == 1 for r in results)  # validation would fail again: not resent
    assert server.batches.stats().requests == 2
    with Ledger(store.path) as ledger:
        (row,) = ledger.batches()
    assert row.status == "failed" and row.closed


def test_a_slow_batch_is_polled_until_it_ends(store: RunStore) -> None:
    with FakeOpenAIServer(batch_faults=[BatchFault("slow", delay=0.5)]) as server:
        results, counters = complete_all(store, batch_endpoint(server), ["a", "b", "c"])
    assert all(r.ok for r in results) and counters.batches == 1
    assert all(r.latency_ms >= 500 for r in results)


def test_line_faults_follow_the_online_rules(store: RunStore) -> None:
    # A 503 line is resent; an empty answer is asked again, then recorded with its reason.
    rules = [
        Rule("transient", faults=[Fault("status", status=503)]),
        Rule("empty", always=Fault("empty_content")),
        Rule("bad", always=Fault("status", status=400)),
    ]
    with FakeOpenAIServer(rules) as server:
        results, _ = complete_all(store, batch_endpoint(server), ["transient", "empty", "bad"])
    transient, empty, bad = results
    assert transient.ok and transient.attempts == 2
    assert not empty.ok and empty.error == "empty content" and empty.attempts == 2
    assert not bad.ok and "HTTP 400" in bad.error and bad.attempts == 1


def test_mixed_online_and_batch_endpoints(store: RunStore) -> None:
    with FakeOpenAIServer() as server:
        batch = batch_endpoint(server)
        online = ModelEndpoint(name="online", model="fake-model", base_url=server.base_url)

        async def go():
            client = LLMClient(store=store, retry=FAST)
            try:
                return await asyncio.gather(
                    client.complete(batch, ask("one"), stage="answers"),
                    client.complete(online, ask("two"), stage="answers"),
                )
            finally:
                await client.aclose()

        a, b = asyncio.run(go())
        assert server.batches.stats().requests == 1 and server.stats().requests == 2
    assert a.ok and b.ok
    with Ledger(store.path) as ledger:
        modes = ledger.report()["execution"]
    assert modes["batch"]["calls"] == 1 and modes["online"]["calls"] == 1


def test_an_unreachable_batch_api_stops_the_run_and_keeps_the_batch_open(store: RunStore) -> None:
    server = FakeOpenAIServer(batch_latency=5.0).start()
    endpoint = batch_endpoint(server)

    async def go():
        client = LLMClient(store=store, retry=FAST)
        try:
            task = asyncio.ensure_future(client.complete(endpoint, ask("a"), stage="answers"))
            while not server.batches.batches:
                await asyncio.sleep(0.01)
            server.stop()  # the provider goes away while the batch runs
            await task
        finally:
            await client.aclose()

    with pytest.raises(BatchUnavailable, match="run the same command again"):
        asyncio.run(go())
    assert store.count_calls() == 0  # no error stored in place of the result
    with Ledger(store.path) as ledger:
        assert [row.closed for row in ledger.batches()] == [False]


def test_batch_settings_leave_the_cache_key_unchanged() -> None:
    online = ModelEndpoint(name="m", model="fake-model", base_url="http://127.0.0.1:9/v1")
    batch = online.model_copy(
        update={"execution": "batch", "batch_discount": 0.3, "batch_max_requests": 5}
    )
    params = request_params(online)
    assert request_params(batch) == params
    assert call_key(batch, ask("q"), params, 0) == call_key(online, ask("q"), params, 0)


@pytest.mark.parametrize(
    "table",
    [
        {"provider": "local", "execution": "batch"},
        {"base_url": "http://x/v1", "execution": "batch", "batch_discount": 1.5},
        {"base_url": "http://x/v1", "execution": "offline"},
        {"base_url": "http://x/v1", "execution": "batch", "batch_max_requests": 0},
    ],
)
def test_bad_batch_settings_are_refused(table: dict) -> None:
    with pytest.raises(RegistryError):
        parse_registry({"models": {"m": {"model": "fake-model", **table}}}, "models.toml")

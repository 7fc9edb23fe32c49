"""Prompt caching: cached tokens read from each reply, stored, priced at the cached rate and
summed per stage and model; explicit cache markers sent only where the registry asks for them.

Every figure is checked against the test server's own count (``testing.prompt_cache``): a prefix
(every message but the last) that an earlier request to the same model had is reported cached.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from polistemics.llm.client import LLMClient, RetryPolicy, cached_prompt_tokens
from polistemics.llm.keys import call_key, request_params
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.store import RunStore
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.completions import approx_tokens

FAST = RetryPolicy(max_attempts=3, content_attempts=2, base_delay=0.01, max_delay=0.05)
SYSTEM = "You judge answers. " * 40  # a long shared instruction: the cacheable prefix
PREFIX_TOKENS = approx_tokens(SYSTEM)


def endpoint(server: FakeOpenAIServer, **overrides) -> ModelEndpoint:
    fields = {"name": "judge", "model": "fake-model", "base_url": server.base_url, "timeout": 5.0}
    return ModelEndpoint(**(fields | overrides))


def prompt(question: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]


async def ask_all(store: RunStore | None, ep: ModelEndpoint, questions: list[str]) -> list:
    client = LLMClient(store=store, retry=FAST)
    try:
        return [await client.complete(ep, prompt(q), stage="judge") for q in questions]
    finally:
        await client.aclose()


def test_cached_tokens_are_read_stored_and_summed_per_stage_and_model(tmp_path: Path) -> None:
    questions = [f"Question number {i}?" for i in range(5)]
    with FakeOpenAIServer() as server, RunStore(tmp_path / "store.sqlite") as store:
        results = asyncio.run(ask_all(store, endpoint(server), questions))
        assert server.prompt_cache is not None and server.prompt_cache.hits == 4
        # The first call put the prefix in the server's cache; the other four read it.
        assert [r.cached_input_tokens for r in results] == [0] + [PREFIX_TOKENS] * 4
        assert all(r.cached_input_tokens < r.input_tokens for r in results[1:])
        stored = [store.get_call(r.key) for r in results]
        assert [s.cached_input_tokens for s in stored] == [r.cached_input_tokens for r in results]
        (row,) = store.call_stats()
        assert row["cached_input_tokens"] == 4 * PREFIX_TOKENS
        assert row["uncached_input_tokens"] == sum(r.input_tokens for r in results) - 4 * (
            PREFIX_TOKENS
        )


def test_cached_tokens_are_priced_at_the_registry_cached_rate(tmp_path: Path) -> None:
    prices = {"price_input_per_mtok": 3.0, "price_output_per_mtok": 15.0}
    with FakeOpenAIServer() as server:
        cheap = endpoint(server, price_cached_input_per_mtok=0.3, **prices)
        first, second = asyncio.run(ask_all(None, cheap, ["One?", "Two?"]))
    assert first.cached_input_tokens == 0
    assert first.cost == pytest.approx(
        (first.input_tokens * 3.0 + first.output_tokens * 15.0) / 1e6, rel=1e-12
    )
    uncached = second.input_tokens - PREFIX_TOKENS
    assert second.cost == pytest.approx(
        (uncached * 3.0 + PREFIX_TOKENS * 0.3 + second.output_tokens * 15.0) / 1e6, rel=1e-12
    )


def test_without_a_cached_rate_cached_tokens_cost_what_other_input_tokens_cost() -> None:
    with FakeOpenAIServer() as server:
        ep = endpoint(server, price_input_per_mtok=3.0, price_output_per_mtok=15.0)
        _, second = asyncio.run(ask_all(None, ep, ["One?", "Two?"]))
    assert second.cached_input_tokens == PREFIX_TOKENS
    assert second.cost == pytest.approx(
        (second.input_tokens * 3.0 + second.output_tokens * 15.0) / 1e6, rel=1e-12
    )


def test_a_server_reporting_no_cache_gives_zero_cached_tokens() -> None:
    with FakeOpenAIServer(prompt_cache=False) as server:
        results = asyncio.run(ask_all(None, endpoint(server), ["One?", "Two?"]))
    assert [r.cached_input_tokens for r in results] == [0, 0]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ({"usage": {"prompt_tokens_details": {"cached_tokens": 40}}}, 40),
        ({"usage": {"prompt_tokens_details": {"cached_tokens": 400}}}, 100),  # capped
        ({"usage": {"prompt_tokens_details": {"cached_tokens": "x" * 30}}}, 0),
        ({"usage": {"prompt_tokens_details": {"cached_tokens": -3}}}, 0),
        ({"usage": {"prompt_tokens_details": None}}, 0),
        ({"usage": {}, "timings": {"cache_n": 64, "prompt_n": 36}}, 64),  # llama.cpp's server
        ({"usage": {"prompt_tokens_details": {"cached_tokens": 0}}, "timings": {"cache_n": 9}}, 0),
        ({"usage": "none"}, 0),
    ],
)
def test_cached_prompt_tokens_from_each_reply_shape(reply: dict, expected: int) -> None:
    assert cached_prompt_tokens(reply, 100) == expected


def test_cache_markers_are_sent_only_when_asked_and_leave_the_cache_key_alone() -> None:
    with FakeOpenAIServer(record_requests=True) as server:
        plain = endpoint(server)
        marked = endpoint(server, cache_control=True)
        key_plain = call_key(plain, prompt("Q?"), request_params(plain), 0)
        key_marked = call_key(marked, prompt("Q?"), request_params(marked), 0)
        (without,) = asyncio.run(ask_all(None, plain, ["Q?"]))
        (with_markers,) = asyncio.run(ask_all(None, marked, ["Q?"]))
        sent_plain, sent_marked = server.received_requests()
    assert key_plain == key_marked == without.key == with_markers.key
    assert sent_plain["messages"] == prompt("Q?")
    system, user = sent_marked["messages"]
    assert system == {
        "role": "system",
        "content": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
    }
    assert user == prompt("Q?")[1]
    # The marked prefix is the same text: the server's cache sees the same prefix.
    assert with_markers.cached_input_tokens == PREFIX_TOKENS


def test_a_store_made_before_cached_tokens_opens_and_reads_zero(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(
        """CREATE TABLE calls (key TEXT PRIMARY KEY, endpoint TEXT NOT NULL, model TEXT NOT NULL,
        stage TEXT NOT NULL, messages_hash TEXT NOT NULL, params TEXT NOT NULL,
        sample_index INTEGER NOT NULL, status TEXT NOT NULL, response_text TEXT,
        finish_reason TEXT, input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0, reasoning_tokens INTEGER NOT NULL DEFAULT 0,
        cost REAL, latency_ms REAL NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,
        error TEXT, messages BLOB, created_at REAL NOT NULL);
        INSERT INTO calls VALUES ('k', 'e', 'm', 'judge', 'h', '{}', 0, 'ok', 'Yes', 'stop',
        30, 2, 0, NULL, 5.0, 1, NULL, NULL, 0);"""
    )
    db.commit()
    db.close()
    with RunStore(path) as store:
        old = store.get_call("k")
        assert old is not None and old.input_tokens == 30 and old.cached_input_tokens == 0
        (row,) = store.call_stats()
        assert (row["cached_input_tokens"], row["uncached_input_tokens"]) == (0, 30)
    with FakeOpenAIServer() as server, RunStore(path) as store:
        results = asyncio.run(ask_all(store, endpoint(server), ["A?", "B?"]))
        assert store.get_call(results[1].key).cached_input_tokens == PREFIX_TOKENS

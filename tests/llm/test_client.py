"""The client layer against the project's real test server: caching, retries, limits, budget."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
import time
import tracemalloc
from pathlib import Path

import pytest

from polistemics.llm import stored_keys
from polistemics.llm.client import LLMClient, RetryPolicy
from polistemics.llm.keys import CallIdentity, request_params
from polistemics.llm.registry import MissingApiKey, ModelEndpoint
from polistemics.llm.store import FinishedCall, RunStore
from polistemics.llm.types import BudgetExceeded, CallResult
from polistemics.testing import FakeOpenAIServer, Fault, Rule

FAST = RetryPolicy(max_attempts=5, content_attempts=2, base_delay=0.01, max_delay=0.05)


def endpoint(server: FakeOpenAIServer, **overrides) -> ModelEndpoint:
    fields = {
        "name": "fake",
        "model": "fake-model",
        "base_url": server.base_url,
        "timeout": 5.0,
        "max_concurrency": 8,
    }
    fields.update(overrides)
    return ModelEndpoint(**fields)


def ask(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def run(coro):
    return asyncio.run(coro)


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    with RunStore(tmp_path / "store.sqlite") as s:
        yield s


def test_success_is_stored_and_a_second_call_makes_no_request(store: RunStore) -> None:
    with FakeOpenAIServer([Rule("hello", response="Hi there [1]")]) as server:
        ep = endpoint(server)

        async def go():
            client = LLMClient(store=store, retry=FAST)
            first = await client.complete(ep, ask("hello"), stage="answers")
            second = await client.complete(ep, ask("hello"), stage="answers")
            await client.aclose()
            return first, second

        first, second = run(go())
        assert first.ok and first.text == "Hi there [1]" and not first.cached
        assert second.cached and second.text == first.text
        assert server.stats().requests == 1
        assert first.input_tokens > 0 and first.output_tokens > 0 and first.attempts == 1


def test_a_new_client_finds_stored_calls_whatever_stage_asks(store: RunStore) -> None:
    with FakeOpenAIServer([Rule("hello", response="Hi")]) as server:
        ep = endpoint(server)

        async def go(stages: list[str]) -> list:
            client = LLMClient(store=store, retry=FAST)
            results = [await client.complete(ep, ask("hello"), stage=s) for s in stages]
            await client.aclose()
            return results

        (first,) = run(go(["answers"]))
        again = run(go(["answers", "answers", "judge"]))  # twice in its stage, once in another
        assert server.stats().requests == 1
        assert all(r.cached and r.text == first.text == "Hi" for r in again)


def test_stored_calls_asked_for_together_are_read_together_never_a_whole_stage(
    store: RunStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rerun reads the stored results its calls ask for at the same moment in one query,
    and holds only those: not every stored result of the stage (issue 32)."""
    with FakeOpenAIServer([Rule("", response="Hi")]) as server:
        ep = endpoint(server)

        async def go(texts: list[str]) -> list:
            client = LLMClient(store=store, retry=FAST)
            results = await asyncio.gather(
                *(client.complete(ep, ask(t), stage="answers") for t in texts)
            )
            await client.aclose()
            return results

        first = run(go([f"question {i}" for i in range(30)]))
        asked: list[list[str]] = []
        read = store.get_calls
        monkeypatch.setattr(store, "get_calls", lambda keys: asked.append(keys) or read(keys))
        again = run(go([f"question {i}" for i in range(10)] + ["question 3"]))
        assert server.stats().requests == 30
        assert [r.text for r in again] == [r.text for r in first[:10]] + [first[3].text]
        assert all(r.cached for r in again)
        assert len(asked) == 1 and sorted(asked[0]) == sorted(r.key for r in first[:10])


def test_calls_stored_since_the_client_started_are_not_made_again(
    store: RunStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keys stored since start wait in a set merged into the sorted prefixes now and then: a
    call is found before and after the merges."""
    monkeypatch.setattr(stored_keys, "MERGE_EVERY", 3)
    with FakeOpenAIServer([Rule("", response="Hi")]) as server:
        ep = endpoint(server)

        async def go() -> list:
            client = LLMClient(store=store, retry=FAST)
            results = []
            for i in range(10):  # each call asked again at once, and again after the merges
                results.append(await client.complete(ep, ask(f"q{i}"), stage="answers"))
                results.append(await client.complete(ep, ask(f"q{i}"), stage="answers"))
            for i in range(10):
                results.append(await client.complete(ep, ask(f"q{i}"), stage="answers"))
            await client.aclose()
            return results

        results = run(go())
        assert server.stats().requests == 10
        assert sum(not r.cached for r in results) == 10


def test_a_call_whose_key_begins_as_a_stored_calls_does_is_made(store: RunStore) -> None:
    """The client knows stored calls by the first 16 hex digits of their keys: a call whose key
    shares them with a stored call's is looked up, not found, and made."""
    with FakeOpenAIServer([Rule("", response="Hi")]) as server:
        ep = endpoint(server)
        key = CallIdentity.of(ep, ask("hello"), request_params(ep), 0).key
        twin = key[:16] + ("0" if key[16] != "0" else "1") + key[17:]
        other = CallResult(key=twin, endpoint="fake", model="fake-model", status="ok", text="No")
        store.add_calls([FinishedCall(other, "answers", "h", "{}", 0, "[]")])

        async def go() -> list:
            client = LLMClient(store=store, retry=FAST)
            results = [await client.complete(ep, ask("hello"), stage="answers") for _ in range(2)]
            await client.aclose()
            return results

        made, again = run(go())
        assert made.key == key and made.text == "Hi" and not made.cached
        assert again.cached and again.text == "Hi"
        assert server.stats().requests == 1
        assert store.get_call(twin).text == "No"


def test_the_stored_calls_keys_cost_the_client_few_bytes_each(tmp_path: Path) -> None:
    """A set of the keys took about 153 bytes a key (129 MB at 842,823 calls, issue 32)."""
    path = tmp_path / "store.sqlite"
    count = 30_000
    RunStore(path).close()
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO calls (key, endpoint, model, stage, messages_hash, params, "
            "sample_index, status, created_at) VALUES (?, 'e', 'm', 's', 'h', '{}', 0, 'ok', 0)",
            [(hashlib.sha256(str(i).encode()).hexdigest(),) for i in range(count)],
        )
    with RunStore(path) as big:
        tracemalloc.start()
        try:
            client = LLMClient(store=big)
            held, _ = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        run(client.aclose())
    assert held < 20 * count


@pytest.mark.parametrize(
    "fault",
    [
        Fault("status", status=429),
        Fault("status", status=500),
        Fault("status", status=502),
        Fault("status", status=503),
        Fault("timeout", delay=1.5),
        Fault("malformed_json"),
        Fault("truncated_body"),
        Fault("drop_connection"),
    ],
    ids=lambda f: f"{f.kind}-{f.status}",
)
def test_transient_faults_are_retried_until_success(store: RunStore, fault: Fault) -> None:
    with FakeOpenAIServer([Rule("q", response="fine", faults=[fault, fault])]) as server:
        ep = endpoint(server, timeout=0.5)
        result = run(LLMClient(store=store, retry=FAST).complete(ep, ask("q"), stage="s"))
        assert result.ok, result.error
        assert result.attempts == 3
        assert server.stats().requests == 3


def test_retry_after_is_honoured(store: RunStore) -> None:
    rule = Rule("q", response="ok", faults=[Fault("status", status=429, retry_after=0.6)])
    with FakeOpenAIServer([rule]) as server:
        started = time.monotonic()
        result = run(
            LLMClient(store=store, retry=FAST).complete(endpoint(server), ask("q"), stage="s")
        )
        assert result.ok and result.attempts == 2
        assert time.monotonic() - started >= 0.6


def test_final_failure_is_recorded_not_raised_and_not_repeated(store: RunStore) -> None:
    with FakeOpenAIServer([Rule("q", always=Fault("status", status=500))]) as server:
        ep = endpoint(server)
        result = run(LLMClient(store=store, retry=FAST).complete(ep, ask("q"), stage="s"))
        assert result.status == "error" and "HTTP 500" in result.error
        assert result.attempts == FAST.max_attempts
        assert store.error_keys() == [result.key]
        again = run(LLMClient(store=store, retry=FAST).complete(ep, ask("q"), stage="s"))
        assert again.cached and again.status == "error"
        assert server.stats().requests == FAST.max_attempts


def test_errored_calls_can_be_retried_later(store: RunStore) -> None:
    rule = Rule("q", response="recovered", faults=[Fault("status", status=400)])
    with FakeOpenAIServer([rule]) as server:
        ep = endpoint(server)
        failed = run(LLMClient(store=store, retry=FAST).complete(ep, ask("q"), stage="s"))
        assert failed.status == "error" and failed.attempts == 1  # 400 is not retryable
        assert store.forget_errors() == 1
        fixed = run(LLMClient(store=store, retry=FAST).complete(ep, ask("q"), stage="s"))
        assert fixed.ok and fixed.text == "recovered"
        assert store.error_keys() == []


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("empty_content", "empty content"),
        ("content_filter", "content filter"),
        ("length", "cut off at max_tokens"),
        ("reasoning_only", "reasoning only"),
    ],
)
def test_content_faults_are_retried_then_recorded_with_reason(
    store: RunStore, kind: str, reason: str
) -> None:
    with FakeOpenAIServer([Rule("q", always=Fault(kind))]) as server:
        result = run(
            LLMClient(store=store, retry=FAST).complete(endpoint(server), ask("q"), stage="s")
        )
        assert result.status == "error"
        assert reason in result.error
        assert server.stats().requests == FAST.content_attempts


def test_truncated_answers_are_kept_when_the_endpoint_accepts_them(store: RunStore) -> None:
    with FakeOpenAIServer([Rule("q", always=Fault("length"))]) as server:
        ep = endpoint(server, accept_truncated=True)
        result = run(LLMClient(store=store, retry=FAST).complete(ep, ask("q"), stage="s"))
        assert result.ok and result.finish_reason == "length" and result.text


def test_concurrency_bound_is_respected_at_the_server() -> None:
    with FakeOpenAIServer(latency=0.15) as server:
        ep = endpoint(server, max_concurrency=4)

        async def go():
            client = LLMClient(retry=FAST)
            results = await asyncio.gather(
                *(client.complete(ep, ask(f"q{i}"), stage="s") for i in range(20))
            )
            await client.aclose()
            return results

        results = run(go())
        assert all(r.ok for r in results)
        assert server.stats().max_in_flight == 4


def test_sustained_rate_limiting_lowers_concurrency() -> None:
    faults = [Fault("status", status=429)] * 2
    rules = [Rule(f"q{i}$", response="ok", faults=faults) for i in range(12)]
    with FakeOpenAIServer(rules, latency=0.05) as server:
        ep = endpoint(server, max_concurrency=8)

        async def go():
            client = LLMClient(retry=FAST)
            results = await asyncio.gather(
                *(client.complete(ep, ask(f"q{i}"), stage="s") for i in range(12))
            )
            return client.limiter(ep), results

        limiter, results = run(go())
        assert all(r.ok for r in results)
        assert limiter.reductions >= 1
        assert limiter.limit < 8


def test_identical_calls_in_flight_make_one_request(store: RunStore) -> None:
    with FakeOpenAIServer(latency=0.2) as server:
        ep = endpoint(server)
        judge_b = endpoint(server, name="judge-b")  # another registry name, same model and params

        async def go():
            client = LLMClient(store=store, retry=FAST)
            return await asyncio.gather(
                client.complete(ep, ask("same"), stage="judge"),
                client.complete(ep, ask("same"), stage="judge"),
                client.complete(judge_b, ask("same"), stage="judge"),
            )

        results = run(go())
        assert len({r.key for r in results}) == 1
        assert server.stats().requests == 1
        assert sum(r.cached for r in results) == 2


def test_sample_index_separates_repeated_samples(store: RunStore) -> None:
    with FakeOpenAIServer() as server:
        ep = endpoint(server, temperature=0.7)

        async def go():
            client = LLMClient(store=store, retry=FAST)
            return [
                await client.complete(ep, ask("x"), stage="s", sample_index=i) for i in range(3)
            ]

        results = run(go())
        assert len({r.key for r in results}) == 3
        assert server.stats().requests == 3


def test_budget_cap_stops_cleanly_and_keeps_finished_calls(store: RunStore) -> None:
    with FakeOpenAIServer(usage_cost_per_token=0.001) as server:
        ep = endpoint(server, max_concurrency=1)

        async def go():
            client = LLMClient(store=store, retry=FAST, max_cost=0.05)
            done = 0
            with pytest.raises(BudgetExceeded, match="cost cap"):
                for i in range(100):
                    await client.complete(ep, ask(f"question number {i}"), stage="s")
                    done += 1
            return done, client.spent

        done, spent = run(go())
        assert 0 < done < 100
        assert spent >= 0.05
        assert store.count_calls() == done
        assert server.stats().requests == done


def test_missing_key_fails_before_any_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POLISTEMICS_TEST_KEY", raising=False)
    with FakeOpenAIServer() as server:
        ep = endpoint(server, api_key_env="POLISTEMICS_TEST_KEY")
        with pytest.raises(MissingApiKey, match="POLISTEMICS_TEST_KEY"):
            run(LLMClient(retry=FAST).complete(ep, ask("x"), stage="s"))
        assert server.stats().requests == 0


def test_api_key_is_sent_but_never_stored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    secret = "sk-planted-secret-0123456789abcdef"
    monkeypatch.setenv("POLISTEMICS_TEST_KEY", secret)
    rules = [Rule("fail", always=Fault("status", status=500))]
    with (
        FakeOpenAIServer(rules, expected_api_key=secret) as server,
        RunStore(tmp_path / "s.sqlite") as store,
    ):
        ep = endpoint(server, api_key_env="POLISTEMICS_TEST_KEY")

        async def go():
            client = LLMClient(store=store, retry=FAST)
            ok = await client.complete(ep, ask("hello"), stage="s")
            bad = await client.complete(ep, ask("fail"), stage="s")
            return ok, bad

        ok, bad = run(go())
        assert ok.ok and bad.status == "error"
    for path in tmp_path.iterdir():
        assert secret.encode() not in path.read_bytes(), path
    assert secret not in repr(ok) + repr(bad)


def test_pieces_of_the_key_in_a_reply_are_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-planted-secret-0123456789abcdef"
    monkeypatch.setenv("POLISTEMICS_TEST_KEY", secret)
    echo = f"You sent Bearer {secret}; its end is {secret[-9:]} and {secret[4:11]} is too short."
    with FakeOpenAIServer([Rule("echo", response=echo)], expected_api_key=secret) as server:
        ep = endpoint(server, api_key_env="POLISTEMICS_TEST_KEY")
        result = run(LLMClient(retry=FAST).complete(ep, ask("echo"), stage="s"))
    assert result.text == (
        f"You sent Bearer [redacted]; its end is [redacted] and {secret[4:11]} is too short."
    )


def test_grammar_endpoints_get_a_grammar_and_a_seed_per_sample(store: RunStore) -> None:
    schema = {"type": "object", "properties": {"determinable": {"type": "boolean"}}}
    with FakeOpenAIServer([Rule("audit", response='{"determinable":false}')]) as server:
        ep = endpoint(server, structured_output="grammar", seed=7, temperature=0.3)

        async def go():
            client = LLMClient(store=store, retry=FAST)
            for i in range(2):
                await client.complete(
                    ep, ask("audit"), stage="s", sample_index=i, json_schema=schema
                )

        run(go())
        sent = server.stats().last_requests
        assert [r["seed"] for r in sent] == [7, 8]
        assert all("determinable" in r["grammar"] and "root ::=" in r["grammar"] for r in sent)
        assert all("response_format" not in r for r in sent)


def test_each_endpoint_and_sample_gets_its_own_request_body(store: RunStore) -> None:
    """The client makes a request body once per endpoint and sample index and sends it again:
    never one endpoint's body for another's call, nor one sample's seed for another's."""
    with FakeOpenAIServer([Rule("", response="fine")]) as server:
        warm = endpoint(server, seed=7, temperature=0.7)
        cold = endpoint(server, seed=7, temperature=0.0, max_tokens=99)

        async def go():
            client = LLMClient(store=store, retry=FAST)
            for i, ep in enumerate([warm, cold, warm, cold, warm]):
                await client.complete(ep, ask(f"question {i}"), stage="s", sample_index=i % 2)
            await client.aclose()

        run(go())
        sent = server.stats().last_requests
        assert [(r["temperature"], r["max_tokens"], r["seed"]) for r in sent] == [
            (0.7, warm.max_tokens, 7),
            (0.0, 99, 8),
            (0.7, warm.max_tokens, 7),
            (0.0, 99, 8),
            (0.7, warm.max_tokens, 7),
        ]
        assert [r["messages"][0]["content"] for r in sent] == [f"question {i}" for i in range(5)]


def test_json_schema_endpoints_get_a_strict_response_format(store: RunStore) -> None:
    schema = {"type": "object", "properties": {"x": {"type": "string"}}}
    with FakeOpenAIServer() as server:
        ep = endpoint(server, structured_output="json_schema")
        run(
            LLMClient(store=store, retry=FAST).complete(ep, ask("q"), stage="s", json_schema=schema)
        )
        sent = server.stats().last_requests[-1]
        assert sent["response_format"]["type"] == "json_schema"
        assert sent["response_format"]["json_schema"]["schema"] == schema


@pytest.mark.parametrize("mode", ["json_schema", "json_object"])
def test_string_lengths_are_left_out_only_where_strict_mode_refuses_them(
    store: RunStore, mode: str
) -> None:
    text = {"type": "string", "pattern": "^A", "minLength": 5, "maxLength": 9}
    schema = {
        "type": "object",
        # A property may itself be called maxLength: only the keyword goes.
        "properties": {"t": text, "maxLength": {"type": "boolean"}},
        "required": ["t", "maxLength"],
        "additionalProperties": False,
    }
    with FakeOpenAIServer() as server:
        ep = endpoint(server, structured_output=mode)
        run(
            LLMClient(store=store, retry=FAST).complete(ep, ask("q"), stage="s", json_schema=schema)
        )
        response_format = server.stats().last_requests[-1]["response_format"]
    if mode == "json_schema":
        sent = response_format["json_schema"]["schema"]
        assert sent["properties"]["t"] == {"type": "string", "pattern": "^A"}
        assert sent["properties"]["maxLength"] == {"type": "boolean"}
        assert sent["required"] == ["t", "maxLength"]
    else:  # llama.cpp enforces the whole schema given this way
        assert response_format["schema"] == schema


VERDICT_TOOL_SCHEMA = {
    "title": "verdicts",
    "description": "One verdict per question.",
    "type": "object",
    "properties": {"q1": {"type": "string", "enum": ["Yes", "No"]}},
    "required": ["q1"],
    "additionalProperties": False,
}
TOOL_ARGUMENTS = '{"q1": "Yes"}'


def _tool_call(store: RunStore, rule: Rule) -> tuple[object, list[dict]]:
    with FakeOpenAIServer([rule], record_requests=True) as server:
        ep = endpoint(server, structured_output="tool")
        result = run(
            LLMClient(store=store, retry=FAST).complete(
                ep, ask("q"), stage="s", json_schema=VERDICT_TOOL_SCHEMA
            )
        )
        return result, server.received_requests()


def test_tool_mode_sends_one_forced_function_and_reads_its_arguments(store: RunStore) -> None:
    result, sent = _tool_call(store, Rule("q", response=TOOL_ARGUMENTS))
    assert result.ok and result.text == TOOL_ARGUMENTS and result.attempts == 1
    assert result.finish_reason == "tool_calls"
    (body,) = sent
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "verdicts",
                "parameters": VERDICT_TOOL_SCHEMA,
                "description": "One verdict per question.",
            },
        }
    ]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "verdicts"}}
    assert "response_format" not in body


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("no_tool_call", "no tool call in the reply (tool_choice forced 'verdicts')"),
        ("malformed_arguments", "the arguments of the 'verdicts' tool call are not a JSON object"),
    ],
)
def test_tool_mode_faults_are_retried_then_recorded_with_reason(
    store: RunStore, kind: str, reason: str
) -> None:
    result, sent = _tool_call(store, Rule("q", response=TOOL_ARGUMENTS, always=Fault(kind)))
    assert result.status == "error" and result.error == reason
    assert len(sent) == FAST.content_attempts == result.attempts
    if kind == "no_tool_call":  # what the model said instead is kept for the record
        assert result.text == TOOL_ARGUMENTS


def test_tool_mode_recovers_when_a_retry_brings_the_tool_call(store: RunStore) -> None:
    rule = Rule("q", response=TOOL_ARGUMENTS, faults=[Fault("malformed_arguments")])
    result, sent = _tool_call(store, rule)
    assert result.ok and result.text == TOOL_ARGUMENTS and result.attempts == 2 == len(sent)


def test_tool_mode_refuses_arguments_that_are_json_but_not_an_object(store: RunStore) -> None:
    result, _ = _tool_call(store, Rule("q", response='["Yes"]'))
    assert result.status == "error" and "not a JSON object" in result.error

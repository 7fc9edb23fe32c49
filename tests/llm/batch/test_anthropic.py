"""Anthropic's Message Batches: our requests in Anthropic's message format, its results read back
as chat completions, through the client layer against the test server's /v1/messages/batches."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from polistemics.llm.batch.anthropic import (
    JSON_TOOL,
    completion_body,
    message_params,
    read_results,
    request_line,
    requests_body,
)
from polistemics.llm.batch.api import AnthropicBatchAPI
from polistemics.llm.client import LLMClient
from polistemics.llm.keys import messages_json
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.store import RunStore
from polistemics.llm.transport import MalformedBody
from polistemics.testing import FakeOpenAIServer, Rule
from polistemics.testing.batch_api import BatchFault

from .test_batch_client import FAST, ask, batch_endpoint

KEY = "a" * 64
SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


def anthropic_endpoint(server: FakeOpenAIServer, **overrides):
    return batch_endpoint(server, batch_api="anthropic", **overrides)


def complete_all(store, endpoint, prompts, **kwargs):
    async def go():
        client = LLMClient(store=store, retry=FAST)
        try:
            results = await asyncio.gather(
                *(client.complete(endpoint, ask(p), stage="judge", **kwargs) for p in prompts)
            )
            return results, client.batches.counters
        finally:
            await client.aclose()

    return asyncio.run(go())


@pytest.fixture
def store(tmp_path: Path):
    with RunStore(tmp_path / "store.sqlite") as s:
        yield s


def test_message_params_split_the_system_prompt_and_take_tools() -> None:
    messages = [{"role": "system", "content": "rules"}, {"role": "user", "content": "q"}]
    body = {
        "model": "claude",
        "max_tokens": 100,
        "temperature": 0.0,
        "seed": 3,
        "tools": [{"type": "function", "function": {"name": "verdicts", "parameters": SCHEMA}}],
        "tool_choice": {"type": "function", "function": {"name": "verdicts"}},
    }
    assert message_params(body, messages) == {
        "model": "claude",
        "max_tokens": 100,
        "temperature": 0.0,
        "system": "rules",
        "messages": [{"role": "user", "content": "q"}],
        "tools": [{"name": "verdicts", "input_schema": SCHEMA}],
        "tool_choice": {"type": "tool", "name": "verdicts"},
    }
    schema_format = {"type": "json_schema", "json_schema": {"name": "x", "schema": SCHEMA}}
    params = message_params({"model": "c", "max_tokens": 1, "response_format": schema_format}, [])
    assert params["tools"] == [{"name": JSON_TOOL, "input_schema": SCHEMA}]
    line = request_line(KEY, {"model": "c", "max_tokens": 1}, messages_json(messages))
    assert json.loads(requests_body([line, line]))["requests"][1]["custom_id"] == KEY


def result(custom_id: object, result: object) -> bytes:
    return json.dumps({"custom_id": custom_id, "result": result}).encode()


def test_result_lines_become_chat_completions_or_refusals() -> None:
    message = {
        "content": [{"type": "tool_use", "id": "t", "name": JSON_TOOL, "input": {"a": 1}}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 7, "output_tokens": 3},
    }
    other = "b" * 64
    files = [
        b"\n".join(
            [
                result(KEY, {"type": "succeeded", "message": message}),
                result(other, {"type": "expired"}),
                result("c" * 64, {"type": "succeeded", "message": message}),  # never sent
                result("d" * 64, {"type": "succeeded", "message": {"content": "no list"}}),
                b'{"custom_id": ',
            ]
        )
    ]
    read = read_results(files, {KEY, other, "d" * 64})
    body = read.results[KEY].body
    assert body["choices"][0]["message"]["content"] == '{"a": 1}'
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["usage"] == {"prompt_tokens": 7, "completion_tokens": 3}
    assert not read.results[other].ran
    assert dict(read.refused) == {"unknown": 1, "malformed": 2}


def test_a_results_url_elsewhere_is_refused() -> None:
    api = AnthropicBatchAPI("https://api.anthropic.com/v1", "key")
    with pytest.raises(MalformedBody):
        asyncio.run(api.results("https://evil.example/v1/messages/batches/x/results"))


def test_calls_go_in_a_message_batch(store: RunStore) -> None:
    prompts = [f"question {i}" for i in range(6)]
    with FakeOpenAIServer([Rule("question", response="an answer")]) as server:
        endpoint = anthropic_endpoint(server)
        results, counters = complete_all(store, endpoint, prompts)
        stats = server.batches.stats()
        (batch,) = server.batches.batches.values()
        requests = server.batches.files[batch["input_file_id"]].splitlines()
    assert batch["id"].startswith("msgbatch_")
    assert all(r.ok and r.text == "an answer" for r in results)
    assert set(stats.requests_per_custom_id.values()) == {1} and counters.batches == 1
    assert all(json.loads(line)["body"]["messages"] for line in requests)
    for r in results:
        assert r.cost == pytest.approx(
            endpoint.estimate_cost(r.input_tokens, r.output_tokens) * 0.5
        )


@pytest.mark.parametrize("mode", ["tool", "json_schema"])
def test_structured_output_takes_anthropics_tool_form(store: RunStore, mode: str) -> None:
    with FakeOpenAIServer([Rule("verdict", response='{"a": 1}')]) as server:
        endpoint = anthropic_endpoint(server, structured_output=mode)
        (r,), _ = complete_all(store, endpoint, ["verdict please"], json_schema=SCHEMA)
    assert r.ok and json.loads(r.text) == {"a": 1}


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
def test_faulty_message_batches_resend_only_the_missing(
    store: RunStore, fault: BatchFault, refused: dict
) -> None:
    prompts = [f"question {i}" for i in range(10)]
    with FakeOpenAIServer([Rule("question", response="an answer")], batch_faults=[fault]) as server:
        results, counters = complete_all(store, anthropic_endpoint(server), prompts)
        received = server.batches.stats().requests_per_custom_id
    assert all(r.ok and r.text == "an answer" for r in results)
    again = [key for key, n in received.items() if n > 1]
    assert counters.resubmitted == len(again) and all(n <= 2 for n in received.values())
    assert (again == []) == (fault.kind == "unknown_custom_id")
    assert {k: v for k, v in counters.refused_lines.items() if v} == refused


RUBRIC = "You judge answers. " * 40  # one system prompt shared by every call


def judged(store, endpoint, texts: list[str], **kwargs):
    """Calls with the shared system prompt, one after another (so the server's prompt cache has
    seen the prefix before the later calls), through the client."""

    async def go():
        client = LLMClient(store=store, retry=FAST)
        try:
            results = []
            for text in texts:
                messages = [
                    {"role": "system", "content": RUBRIC},
                    {"role": "user", "content": f"question {text}"},
                ]
                results.append(await client.complete(endpoint, messages, stage="judge", **kwargs))
            return results
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_cache_control_marks_the_system_prompt_in_anthropics_own_form(tmp_path: Path) -> None:
    texts = ["one", "two", "three"]
    with FakeOpenAIServer([Rule("question", response="an answer")]) as server:
        with RunStore(tmp_path / "marked.sqlite") as store:
            marked = judged(store, anthropic_endpoint(server, cache_control=True), texts)
        sent = list(server.batches.message_requests)
        server.prompt_cache.clear()
        with RunStore(tmp_path / "plain.sqlite") as store:
            plain = judged(store, anthropic_endpoint(server), texts)
    assert [request["params"] for request in sent] == [
        {
            "model": "fake-model",
            "max_tokens": 1024,
            "messages": [{"role": "user", "content": f"question {text}"}],
            "system": [{"type": "text", "text": RUBRIC, "cache_control": {"type": "ephemeral"}}],
            "temperature": 0.0,
        }
        for text in texts
    ]
    assert [request["custom_id"] for request in sent] == [r.key for r in marked]
    # The prompt and its cache key stay the same; only what is sent carries the marker.
    assert [r.key for r in marked] == [r.key for r in plain]
    assert all(r.ok and r.text == "an answer" for r in marked)
    # Anthropic's input_tokens leave cache reads out: the prompt tokens are counted whole.
    assert [r.input_tokens for r in marked] == [r.input_tokens for r in plain]
    assert marked[0].cached_input_tokens == 0
    assert all(0 < r.cached_input_tokens < r.input_tokens for r in marked[1:])
    assert all(r.cached_input_tokens == 0 for r in plain)  # no breakpoint, no cache read


@pytest.mark.parametrize(
    ("reasoning", "budget"), [({"max_tokens": 2000}, 2000), ({"effort": "medium"}, 2048)]
)
def test_reasoning_is_sent_as_anthropics_extended_thinking(
    store: RunStore, reasoning: dict, budget: int
) -> None:
    with FakeOpenAIServer([Rule("question", response="an answer")]) as server:
        endpoint = anthropic_endpoint(server, reasoning=reasoning, max_tokens=4096, top_p=0.9)
        (result,) = judged(store, endpoint, ["one"])
        (request,) = server.batches.message_requests
    # Anthropic refuses thinking with a set temperature (or top_p): neither is sent.
    assert request["params"] == {
        "model": "fake-model",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": "question one"}],
        "system": RUBRIC,
        "thinking": {"type": "enabled", "budget_tokens": budget},
    }
    assert result.ok and result.text == "an answer"  # the thinking block is not the answer


def test_thinking_offers_a_structured_output_tool_without_forcing_it() -> None:
    body = {
        "model": "claude",
        "max_tokens": 3000,
        "temperature": 0.0,
        "reasoning": {"max_tokens": 1500},
        "tools": [{"type": "function", "function": {"name": "verdicts", "parameters": SCHEMA}}],
        "tool_choice": {"type": "function", "function": {"name": "verdicts"}},
    }
    assert message_params(body, [{"role": "user", "content": "q"}]) == {
        "model": "claude",
        "max_tokens": 3000,
        "messages": [{"role": "user", "content": "q"}],
        "thinking": {"type": "enabled", "budget_tokens": 1500},
        "tools": [{"name": "verdicts", "input_schema": SCHEMA}],
        "tool_choice": {"type": "auto"},
    }


def test_a_thinking_budget_not_below_max_tokens_is_refused_when_the_registry_is_read() -> None:
    fields = {"name": "c", "model": "claude", "base_url": "https://api.anthropic.com/v1"}
    batch = {"execution": "batch", "batch_api": "anthropic", **fields}
    with pytest.raises(ValueError, match="must be below max_tokens"):
        ModelEndpoint(**batch, reasoning={"effort": "high"}, max_tokens=1024)
    assert ModelEndpoint(**batch, reasoning={"effort": "high"}, max_tokens=8000)
    assert ModelEndpoint(**fields, reasoning={"effort": "high"}, max_tokens=1024)  # online


def test_thinking_and_cache_counts_are_read_back() -> None:
    message = {
        "content": [
            {"type": "thinking", "thinking": "Let me see.", "signature": "s"},
            {"type": "text", "text": "Yes."},
        ],
        "stop_reason": "end_turn",
        "usage": {
            "input_tokens": 5,
            "cache_read_input_tokens": 100,
            "cache_creation_input_tokens": 20,
            "output_tokens": 9,
        },
    }
    body = completion_body(message)
    assert body["choices"][0]["message"] == {
        "role": "assistant",
        "content": "Yes.",
        "reasoning": "Let me see.",
    }
    assert body["usage"] == {
        "prompt_tokens": 125,
        "completion_tokens": 9,
        "prompt_tokens_details": {"cached_tokens": 100},
    }

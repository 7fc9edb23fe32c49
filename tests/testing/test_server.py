"""The fake OpenAI server, exercised through the real openai SDK and httpx over TCP."""

from __future__ import annotations

import asyncio
import functools
import http.client
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from polistemics.testing import (
    FakeOpenAIServer,
    Fault,
    Rule,
    ServerConfigError,
    ServerStats,
    approx_tokens,
    prompt_key,
)

SRC_DIR = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture
def serve() -> Iterator:
    """Start FakeOpenAIServers for a test and stop them afterwards."""
    started: list[FakeOpenAIServer] = []

    def _serve(*args, **kwargs) -> FakeOpenAIServer:
        server = FakeOpenAIServer(*args, **kwargs).start()
        started.append(server)
        return server

    yield _serve
    for server in started:
        server.stop()


@functools.lru_cache(maxsize=32)  # building a client (TLS context) costs more than a request
def client(server: FakeOpenAIServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)


def ask(server: FakeOpenAIServer, text: str, **kwargs):
    return client(server).chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": text}], **kwargs
    )


# ---- normal answers --------------------------------------------------------------------------


def test_normal_answer_has_openai_shape_and_usage(serve):
    server = serve([Rule("hello", response="hi there friend")], usage_cost_per_token=1e-6)
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello you"}]
    reply = client(server).chat.completions.create(model="some/model", messages=messages)

    assert reply.model == "some/model"
    assert reply.object == "chat.completion"
    assert reply.choices[0].message.content == "hi there friend"
    assert reply.choices[0].finish_reason == "stop"
    prompt_tokens = approx_tokens("be brief\nhello you")
    assert reply.usage.prompt_tokens == prompt_tokens == 5  # 4 words * 1.3 rounded
    assert reply.usage.completion_tokens == approx_tokens("hi there friend") == 4
    assert reply.usage.total_tokens == prompt_tokens + 4
    assert reply.usage.completion_tokens_details.reasoning_tokens == 0
    assert reply.usage.model_extra["cost"] == pytest.approx(9e-6)
    stats = server.stats()
    assert (stats.requests, stats.completed, stats.faults) == (1, 1, {})


def test_callable_response_receives_the_request(serve):
    server = serve(
        [Rule("echo", response=lambda req: f"model={req['model']} t={req['temperature']}")]
    )
    reply = ask(server, "echo", temperature=0.3)
    assert reply.choices[0].message.content == "model=fake-model t=0.3"


def test_cost_is_absent_without_a_price(serve):
    reply = ask(serve(), "anything")
    assert "cost" not in (reply.usage.model_extra or {})


# ---- faults ----------------------------------------------------------------------------------


def test_status_fault_sends_error_body_and_retry_after(serve):
    server = serve(
        [
            Rule("limited", always=Fault("status", status=429, retry_after=2)),
            Rule("broken", always=Fault("status", status=502)),
        ]
    )
    with pytest.raises(openai.RateLimitError) as limited:
        ask(server, "limited")
    assert limited.value.status_code == 429
    assert limited.value.response.headers["retry-after"] == "2"
    assert limited.value.body["message"].startswith("injected fault")

    with pytest.raises(openai.InternalServerError) as broken:
        ask(server, "broken")
    assert broken.value.status_code == 502
    assert "retry-after" not in broken.value.response.headers
    assert server.stats().faults == {"status": 2}


def test_timeout_fault_lets_the_client_timeout_fire_first(serve):
    server = serve([Rule("slow", faults=[Fault("timeout", delay=3.0)])])
    started = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        ask(server, "slow", timeout=0.3)
    assert time.monotonic() - started < 2.0
    # Only the first match is slow; the retry is answered at once.
    assert ask(server, "slow", timeout=2.0).choices[0].finish_reason == "stop"
    assert server.stats().faults == {"timeout": 1}


def test_malformed_json_is_a_200_that_does_not_parse(serve):
    server = serve([Rule("x", always=Fault("malformed_json"))])
    response = httpx.post(
        f"{server.base_url}/chat/completions", json={"messages": [{"role": "user", "content": "x"}]}
    )
    assert response.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        response.json()
    # The SDK lets the decoding error through rather than wrapping it in an APIError.
    with pytest.raises(json.JSONDecodeError):
        ask(server, "x")


def test_truncated_body_and_dropped_connection_are_connection_errors(serve):
    server = serve(
        [Rule("cut", always=Fault("truncated_body")), Rule("drop", always=Fault("drop_connection"))]
    )
    body = {"messages": [{"role": "user", "content": "cut"}]}
    with pytest.raises(httpx.RemoteProtocolError, match="incomplete|peer closed"):
        httpx.post(f"{server.base_url}/chat/completions", json=body)
    body = {"messages": [{"role": "user", "content": "drop"}]}
    with pytest.raises(httpx.RemoteProtocolError, match="without sending"):
        httpx.post(f"{server.base_url}/chat/completions", json=body)
    for text in ("cut", "drop"):
        with pytest.raises(openai.APIConnectionError):
            ask(server, text)
    assert server.stats().faults == {"truncated_body": 2, "drop_connection": 2}
    assert server.stats().completed == 0


@pytest.mark.parametrize(
    ("kind", "content", "finish_reason"),
    [("empty_content", "", "stop"), ("content_filter", None, "content_filter")],
)
def test_answers_without_usable_content(serve, kind, content, finish_reason):
    server = serve([Rule("q", response="a full answer", always=Fault(kind))])
    choice = ask(server, "q").choices[0]
    assert choice.message.content == content
    assert choice.finish_reason == finish_reason
    assert server.stats().faults == {kind: 1}


def test_length_fault_sends_a_prefix_with_finish_reason_length(serve):
    full = "one two three four five six seven eight"
    server = serve([Rule("q", response=full, always=Fault("length"))])
    choice = ask(server, "q").choices[0]
    assert choice.finish_reason == "length"
    assert full.startswith(choice.message.content)
    assert 0 < len(choice.message.content) < len(full)


def test_reasoning_only_fault_has_reasoning_but_no_content(serve):
    server = serve([Rule("q", response="the answer", always=Fault("reasoning_only"))])
    reply = ask(server, "q")
    message = reply.choices[0].message
    assert message.content is None
    assert message.model_extra["reasoning"].endswith("the answer")
    assert reply.choices[0].finish_reason == "stop"
    reasoning_tokens = reply.usage.completion_tokens_details.reasoning_tokens
    assert reasoning_tokens == approx_tokens(message.model_extra["reasoning"]) > 0
    assert reply.usage.completion_tokens == reasoning_tokens


def test_responder_errors_become_500s_and_are_counted(serve):
    def broken(_request: dict) -> str:
        raise KeyError("missing")

    server = serve(responder=broken)
    with pytest.raises(openai.InternalServerError, match="responder failed"):
        ask(server, "q")
    stats = server.stats()
    assert (stats.faults, stats.completed) == ({"responder_error": 1}, 0)


def test_jitter_adds_a_stable_delay_below_the_jitter(serve):
    server = serve(latency=0.1, jitter=0.05, seed=4)
    delays = [server._latency(None, prompt_key([{"content": str(i)}]), 0) for i in range(20)]
    assert all(0.1 <= d < 0.15 for d in delays)
    assert len(set(delays)) == 20
    assert delays == [
        server._latency(None, prompt_key([{"content": str(i)}]), 0) for i in range(20)
    ]


# ---- rules -----------------------------------------------------------------------------------


def test_first_matching_rule_wins_and_faults_hit_the_first_requests_only(serve):
    server = serve(
        [
            Rule(
                r"apple \d",
                response="numbered apple",
                faults=[Fault("status", status=503), Fault("status")],
            ),
            Rule("apple", response="any apple"),
        ]
    )
    outcomes = []
    for _ in range(4):
        try:
            outcomes.append(ask(server, "apple 1").choices[0].message.content)
        except openai.APIStatusError as err:
            outcomes.append(err.status_code)
    assert outcomes == [503, 500, "numbered apple", "numbered apple"]
    assert ask(server, "green apple").choices[0].message.content == "any apple"
    stats = server.stats()
    assert (stats.requests, stats.completed, stats.faults) == (5, 3, {"status": 2})


def test_always_fault_is_permanent_and_add_rule_appends(serve):
    server = serve([Rule("doomed", always=Fault("status", status=500))])
    for _ in range(3):
        with pytest.raises(openai.InternalServerError):
            ask(server, "doomed")
    server.add_rule(Rule("later", response="added"))
    assert ask(server, "later").choices[0].message.content == "added"


def test_rule_latency_overrides_server_latency(serve):
    server = serve([Rule("fast", latency=0.0)], latency=1.0)
    started = time.monotonic()
    ask(server, "fast")
    assert time.monotonic() - started < 0.5


def test_latency_includes_the_servers_own_work(serve):
    def slow_responder(request: dict) -> str:
        time.sleep(0.6)  # the server's own work, on its event loop
        return "done"

    server = serve(latency=0.8, responder=slow_responder)
    started = time.monotonic()
    assert ask(server, "anything").choices[0].message.content == "done"
    # Counted from the request's arrival: ~0.8 s, where work after the wait would make it 1.4 s.
    assert 0.8 <= time.monotonic() - started < 1.3


# ---- concurrency, fault rates, stats ---------------------------------------------------------


def test_max_in_flight_counts_simultaneous_requests(serve):
    server = serve(latency=0.4)  # time enough for a loaded machine to send all 20

    async def burst() -> float:
        async with openai.AsyncOpenAI(
            base_url=server.base_url, api_key="sk", max_retries=0
        ) as aclient:
            started = time.monotonic()
            replies = await asyncio.gather(
                *(
                    aclient.chat.completions.create(
                        model="m", messages=[{"role": "user", "content": f"question {i}"}]
                    )
                    for i in range(20)
                )
            )
            assert all(r.choices[0].finish_reason == "stop" for r in replies)
            return time.monotonic() - started

    elapsed = asyncio.run(burst())
    stats = server.stats()
    assert stats.max_in_flight == 20
    assert stats.in_flight == 0
    assert elapsed < 2.0  # served side by side, not one after another (20 * 0.4 s = 8 s)


def _permanent_failures(server: FakeOpenAIServer, prompts: list[str]) -> set[str]:
    failed = set()
    for text in prompts:
        try:
            ask(server, text)
        except openai.InternalServerError:
            failed.add(text)
    return failed


def test_permanent_faults_are_stable_per_prompt_and_seed(serve):
    prompts = [f"prompt {i}" for i in range(40)]
    server = serve(permanent_fault_rate=0.5, seed=7)
    first = _permanent_failures(server, prompts)
    assert _permanent_failures(server, prompts) == first  # retries fail the same way
    assert 8 <= len(first) <= 32  # about half of 40 (binomial, well inside 4 sd)
    assert _permanent_failures(serve(permanent_fault_rate=0.5, seed=7), prompts) == first
    assert _permanent_failures(serve(permanent_fault_rate=0.5, seed=8), prompts) != first
    assert server.stats().faults == {"status": 2 * len(first)}


def test_transient_faults_clear_on_retry_and_repeat_by_seed(serve):
    def run(seed: int) -> list[int]:
        server = serve(
            transient_fault_rate=0.3, seed=seed, transient_fault=Fault("status", status=503)
        )
        attempts_needed = []
        for i in range(30):
            for attempt in range(1, 20):
                try:
                    ask(server, f"transient {i}")
                except openai.InternalServerError as err:
                    assert err.status_code == 503
                    continue
                attempts_needed.append(attempt)
                break
        return attempts_needed

    first = run(seed=1)
    assert len(first) == 30  # every prompt eventually succeeds
    assert any(n > 1 for n in first)
    assert run(seed=1) == first


def test_per_prompt_stats_last_requests_and_reset(serve):
    server = serve()
    messages_a = [{"role": "user", "content": "a"}]
    messages_b = [{"role": "system", "content": "s"}, {"role": "user", "content": "b"}]
    llm = client(server)
    for messages in (messages_a, messages_a, messages_b):
        llm.chat.completions.create(
            model="m",
            messages=messages,
            response_format={"type": "json_object"},
            extra_body={"repeat_penalty": 1.1, "reasoning": {"effort": "low"}},
        )
    stats = server.stats()
    assert stats.per_prompt == {prompt_key(messages_a): 2, prompt_key(messages_b): 1}
    last = stats.last_requests[-1]
    assert last["messages"] == messages_b
    assert last["repeat_penalty"] == 1.1
    assert last["response_format"] == {"type": "json_object"}
    assert last["reasoning"] == {"effort": "low"}

    over_http = ServerStats.model_validate(
        httpx.get(server.base_url.removesuffix("/v1") + "/stats").json()
    )
    assert over_http == stats
    server.reset_stats()
    assert server.stats().requests == 0
    ask(server, "again")
    assert httpx.post(server.base_url.removesuffix("/v1") + "/reset").json() == {"status": "reset"}
    assert server.stats() == ServerStats()


def test_last_requests_keeps_the_latest_fifty(serve):
    server = serve()
    llm = client(server)
    for i in range(55):
        llm.chat.completions.create(model="m", messages=[{"role": "user", "content": f"n{i}"}])
    last = server.stats().last_requests
    assert [r["messages"][0]["content"] for r in last] == [f"n{i}" for i in range(5, 55)]


def test_every_request_body_is_recorded_when_asked(serve):
    server = serve(record_requests=True)
    llm = client(server)
    for i in range(55):
        llm.chat.completions.create(model="m", messages=[{"role": "user", "content": f"n{i}"}])
    bodies = server.received_requests()
    assert [b["messages"][0]["content"] for b in bodies] == [f"n{i}" for i in range(55)]
    assert all(b["model"] == "m" for b in bodies)
    with pytest.raises(RuntimeError, match="record_requests"):
        serve().received_requests()


TOOL = {"type": "function", "function": {"name": "verdicts", "parameters": {"type": "object"}}}
FORCE = {"type": "function", "function": {"name": "verdicts"}}


def test_a_forced_tool_gets_the_answer_as_its_call_arguments(serve):
    server = serve([Rule("judge", response='{"q1": "Yes"}')])
    reply = ask(server, "judge", tools=[TOOL], tool_choice=FORCE)
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    (call,) = choice.message.tool_calls
    assert (call.function.name, call.function.arguments) == ("verdicts", '{"q1": "Yes"}')
    assert reply.usage.completion_tokens == approx_tokens('{"q1": "Yes"}')


def test_tool_faults_answer_without_the_call_or_with_broken_arguments(serve):
    server = serve(
        [
            Rule("plain", response='{"q1": "No"}', always=Fault("no_tool_call")),
            Rule("broken", response='{"q1": "No"}', always=Fault("malformed_arguments")),
        ]
    )
    plain = ask(server, "plain", tools=[TOOL], tool_choice=FORCE).choices[0]
    assert plain.message.tool_calls is None and plain.message.content == '{"q1": "No"}'
    broken = ask(server, "broken", tools=[TOOL], tool_choice=FORCE).choices[0]
    (call,) = broken.message.tool_calls
    assert call.function.arguments == '{"q1":'
    with pytest.raises(ValueError):
        json.loads(call.function.arguments)
    assert server.stats().faults == {"no_tool_call": 1, "malformed_arguments": 1}


def test_headers_are_recorded_by_name_only_and_api_key_is_checked(serve):
    server = serve(expected_api_key="sk-secret-value")
    good = openai.OpenAI(base_url=server.base_url, api_key="sk-secret-value", max_retries=0)
    good.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    with pytest.raises(openai.AuthenticationError):
        ask(server, "q")  # sends sk-test
    stats = server.stats()
    assert (stats.authorized, stats.unauthorized, stats.completed) == (1, 1, 1)
    assert {"authorization", "content-type", "user-agent"} <= stats.request_headers_seen
    assert all(name == name.lower() for name in stats.request_headers_seen)
    assert "sk-secret-value" not in stats.model_dump_json()
    assert "sk-test" not in stats.model_dump_json()


# ---- endpoints and the HTTP layer -------------------------------------------------------------


def test_side_endpoints_and_errors(serve):
    server = serve([Rule("sent in chunks", response="reassembled")])
    root = server.base_url.removesuffix("/v1")
    assert httpx.get(f"{root}/health").json() == {"status": "ok"}
    assert [m.id for m in client(server).models.list()] == ["fake-model"]
    for response in (httpx.get(f"{root}/nowhere"), httpx.post(f"{root}/v1/embeddings", json={})):
        assert response.status_code == 404
        assert response.json()["error"]["code"] == 404
    not_json = httpx.post(f"{server.base_url}/chat/completions", content=b"{nope")
    # A body without a Content-Length, in two chunks, is decoded like any other.
    chunks = [b'{"messages": [{"role": "user", ', b'"content": "sent in chunks"}]}']
    chunked = httpx.post(f"{server.base_url}/chat/completions", content=iter(chunks))
    assert chunked.request.headers["transfer-encoding"] == "chunked"
    assert chunked.json()["choices"][0]["message"]["content"] == "reassembled"
    streaming = httpx.post(
        f"{server.base_url}/chat/completions",
        json={"messages": [{"role": "user", "content": "q"}], "stream": True},
    )
    assert (not_json.status_code, streaming.status_code) == (400, 400)
    assert "streaming" in streaming.json()["error"]["message"]
    stats = server.stats()
    assert (stats.requests, stats.bad_requests, stats.completed) == (3, 2, 1)


def test_connections_are_kept_alive(serve):
    server = serve()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    body = json.dumps({"messages": [{"role": "user", "content": "q"}]})
    conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    first = conn.getresponse()
    first.read()
    sock = conn.sock
    conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    second = conn.getresponse()
    assert json.loads(second.read())["choices"][0]["finish_reason"] == "stop"
    assert conn.sock is sock is not None
    conn.close()


def test_stop_does_not_wait_for_sleeping_requests(serve):
    server = serve([Rule("hang", always=Fault("timeout", delay=30.0))])
    errors: list[Exception] = []

    def hang() -> None:
        try:
            ask(server, "hang", timeout=60.0)
        except Exception as err:
            errors.append(err)

    thread = threading.Thread(target=hang)
    thread.start()
    deadline = time.monotonic() + 5
    while server.stats().in_flight == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    server.stop()
    thread.join(timeout=5)
    assert time.monotonic() - started < 2.0
    assert len(errors) == 1
    assert isinstance(errors[0], openai.APIConnectionError)


def test_invalid_configuration_is_rejected():
    with pytest.raises(ServerConfigError, match="Fault.kind"):
        Fault("explode")  # type: ignore[arg-type]
    with pytest.raises(ServerConfigError, match="Fault.status"):
        Fault("status", status=200)
    with pytest.raises(ServerConfigError, match="Rule.pattern"):
        Rule("(unclosed")
    with pytest.raises(ServerConfigError, match="permanent_fault_rate"):
        FakeOpenAIServer(permanent_fault_rate=1.5)
    with pytest.raises(RuntimeError, match="not running"):
        _ = FakeOpenAIServer().base_url


# ---- separate process ------------------------------------------------------------------------


def test_subprocess_prints_ready_and_stops_on_sigterm():
    env = {"PYTHONPATH": str(SRC_DIR), "PATH": "/usr/bin:/bin"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "polistemics.testing.server",
            "--port",
            "0",
            "--latency-ms",
            "5",
            "--permanent-fault-rate",
            "0",
            "--seed",
            "3",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = process.stdout.readline().strip()
        assert line.startswith("READY http://127.0.0.1:")
        base_url = line.removeprefix("READY ")
        llm = openai.OpenAI(base_url=base_url, api_key="sk", max_retries=0)
        reply = llm.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].finish_reason == "stop"
        stats = ServerStats.model_validate(
            httpx.get(base_url.removesuffix("/v1") + "/stats").json()
        )
        assert stats.completed == 1
        process.terminate()
        assert process.wait(timeout=5) == 0
        assert process.stderr.read() == ""
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_model_list_route_serves_a_configured_list_at_both_paths(serve):
    listing = {"data": [{"id": "openai/gpt-x", "pricing": {"prompt": "0.000001"}}]}
    server = serve(model_list=listing)
    root = server.base_url.removesuffix("/v1")
    for url in (f"{server.base_url}/models", f"{root}/api/v1/models"):
        assert httpx.get(url).json() == listing
    server.model_list = b'{"data": [truncated'
    malformed = httpx.get(f"{root}/api/v1/models")
    assert (malformed.status_code, malformed.content) == (200, b'{"data": [truncated')
    assert server.model_list_requests == 3
    assert server.stats().requests == 0  # chat completions are counted apart

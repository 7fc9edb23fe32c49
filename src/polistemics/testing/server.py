"""A real OpenAI-compatible HTTP server on 127.0.0.1 with scripted answers and injected faults.

Tests and benchmarks point an OpenAI client at ``server.base_url``. Answers come from the first
matching ``Rule`` or from the responder (by default ``polistemic_responder``); faults come from
rules or from the seeded transient/permanent fault rates. Decisions hash the prompt and its
attempt number, so they are the same across runs, request interleavings and processes.

The HTTP layer is aiohttp's low-level web server on one event loop (uvloop's where it is
installed: ``llm.event_loop``), which runs in a daemon thread of its own, so callers may use the server synchronously from any thread or event
loop. Latency and ``timeout`` faults are ``asyncio.sleep`` calls: a thousand requests waiting
side by side cost no threads and do not contend for the GIL, so the configured latency is the
latency clients see: it counts from a request's arrival, and the reply is made before the wait,
so the server's own work is part of it. ``stop()`` gives requests in progress a moment, then
cancels them and closes their connections without a response.

Run it in its own process with ``python -m polistemics.testing.server --latency-ms 50``; it
prints ``READY <base_url>`` and serves until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import json
import signal
import sys
import threading
import traceback
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from itertools import count

from aiohttp import web

from polistemics.llm import event_loop
from polistemics.testing.batch_api import BatchFault, BatchService
from polistemics.testing.completions import (
    completion_body,
    error_body,
    forced_tool_name,
    messages_text,
    models_body,
    prompt_key,
)
from polistemics.testing.faults import (
    Fault,
    Responder,
    Rule,
    ServerConfigError,
    stable_fraction,
)
from polistemics.testing.prompt_cache import PromptCache
from polistemics.testing.responders import polistemic_responder
from polistemics.testing.stats import ServerStats, StatsRecorder

__all__ = [
    "DEFAULT_TRANSIENT_FAULT",
    "FakeOpenAIServer",
    "Fault",
    "Rule",
    "ServerConfigError",
    "ServerStats",
    "main",
]

DEFAULT_TRANSIENT_FAULT = Fault("status", status=503)
PERMANENT_FAULT = Fault("status", status=500)
MALFORMED_JSON = (
    b'{"id": "chatcmpl-malformed", "object": "chat.completion", "choices": [{"message": '
)
REASONING_PREFIX = "Let me work through the request step by step before answering. "
JSON_HEADERS = {"Content-Type": "application/json"}
LISTEN_BACKLOG = 512  # a small backlog refuses bursts of concurrent connects
STOP_GRACE_SECONDS = 0.05  # how long stop() lets a request finish before cancelling it

_Route = Callable[[web.BaseRequest], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class _Running:
    """A started server: its event loop thread, how to stop it, and the port it listens on."""

    thread: threading.Thread
    loop: asyncio.AbstractEventLoop
    stop_requested: asyncio.Event
    port: int


class FakeOpenAIServer:
    """An OpenAI-compatible chat completions server for tests and benchmarks (see module doc)."""

    def __init__(
        self,
        rules: list[Rule] | None = None,
        *,
        latency: float = 0.0,
        jitter: float = 0.0,
        transient_fault_rate: float = 0.0,
        permanent_fault_rate: float = 0.0,
        seed: int = 0,
        transient_fault: Fault = DEFAULT_TRANSIENT_FAULT,
        responder: Responder | None = None,
        usage_cost_per_token: float | None = None,
        expected_api_key: str | None = None,
        port: int = 0,
        model_ids: Sequence[str] = ("fake-model",),
        model_list: Mapping[str, object] | bytes | None = None,
        record_requests: bool = False,
        batch_latency: float = 0.0,
        batch_faults: Sequence[BatchFault | None] = (),
        prompt_cache: bool = True,
    ) -> None:
        for name, value in (("latency", latency), ("jitter", jitter)):
            if value < 0:
                raise ServerConfigError(f"FakeOpenAIServer.{name}: {value} is negative")
        for name, value in (
            ("transient_fault_rate", transient_fault_rate),
            ("permanent_fault_rate", permanent_fault_rate),
        ):
            if not 0.0 <= value <= 1.0:
                raise ServerConfigError(f"FakeOpenAIServer.{name}: {value} is not within [0, 1]")
        self.latency = latency
        self.jitter = jitter
        self.transient_fault_rate = transient_fault_rate
        self.permanent_fault_rate = permanent_fault_rate
        self.seed = seed
        self.transient_fault = transient_fault
        self.responder: Responder = responder or polistemic_responder
        self.usage_cost_per_token = usage_cost_per_token
        self.expected_api_key = expected_api_key
        self.model_ids = list(model_ids)
        # What GET /v1/models and /api/v1/models serve instead of ``model_ids`` (an OpenRouter-style
        # list with prices, say); bytes are sent as they are, to serve malformed lists.
        self.model_list = model_list
        self.model_list_requests = 0
        # Every chat request body, in arrival order (``received_requests()``), when asked for:
        # ``stats().last_requests`` keeps only the last few.
        self.record_requests = record_requests
        self._recorded: list[dict] = []
        self._recorded_lock = threading.Lock()
        self._port = port
        self._rules_lock = threading.Lock()  # add_rule may run in any thread
        self._rules: list[Rule] = []
        self._rule_hits: list[int] = []
        for rule in rules or []:
            self.add_rule(rule)
        self._stats = StatsRecorder()
        # Reports a prompt prefix an earlier request to the model had as cached tokens
        # (``testing.prompt_cache``); None: no reply reports cached tokens.
        self.prompt_cache = PromptCache() if prompt_cache else None
        self._ids = count(1)
        self._routes: dict[tuple[str, str], _Route] = {
            ("GET", "/health"): self._health,
            ("GET", "/stats"): self._stats_json,
            ("GET", "/v1/models"): self._models,
            ("GET", "/api/v1/models"): self._models,  # OpenRouter's path
            ("POST", "/v1/chat/completions"): self._chat,
            ("POST", "/reset"): self._reset,
        }
        self._running: _Running | None = None
        # OpenAI's batch API (/v1/files, /v1/batches): lines answered by ``answer_offline``.
        self.batches = BatchService(self.answer_offline, latency=batch_latency, faults=batch_faults)

    # ---- lifecycle -------------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        """Listen and serve from a background thread; the server accepts requests on return."""
        if self._running is not None:
            raise RuntimeError("FakeOpenAIServer is already running")
        ready: Future[_Running] = Future()
        thread = threading.Thread(
            target=self._serve_in_thread, args=(ready,), name="fake-openai", daemon=True
        )
        thread.start()
        self._running = ready.result()  # raises what stopped it listening (a port in use, say)
        thread.name = f"fake-openai-{self._running.port}"
        return self

    def stop(self) -> None:
        """Stop listening, cancel requests in progress (after a short grace) and close connections."""
        running, self._running = self._running, None
        if running is None:
            return
        running.loop.call_soon_threadsafe(running.stop_requested.set)
        running.thread.join()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._running is None:
            raise RuntimeError("FakeOpenAIServer is not running: call start() first")
        return self._running.port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _serve_in_thread(self, ready: Future[_Running]) -> None:
        try:
            event_loop.run(self._serve(ready))
        except BaseException as err:
            if ready.done():
                raise
            ready.set_exception(err)

    async def _serve(self, ready: Future[_Running]) -> None:
        """Serve until ``stop_requested`` is set, then close the listener and all connections."""
        stop_requested = asyncio.Event()
        low_level_server = web.Server(self._dispatch, access_log=None)
        runner = web.ServerRunner(low_level_server, shutdown_timeout=STOP_GRACE_SECONDS)
        await runner.setup()
        try:
            site = web.TCPSite(runner, "127.0.0.1", self._port, backlog=LISTEN_BACKLOG)
            await site.start()
            running = _Running(
                threading.current_thread(), asyncio.get_running_loop(), stop_requested, site.port
            )
            ready.set_result(running)
            await stop_requested.wait()
        finally:
            # Waits STOP_GRACE_SECONDS at most for requests in progress, then cancels them.
            await runner.cleanup()

    # ---- configuration and counters --------------------------------------------------------

    def add_rule(self, rule: Rule) -> None:
        with self._rules_lock:
            self._rules.append(rule)
            self._rule_hits.append(0)

    def stats(self) -> ServerStats:
        return self._stats.snapshot()

    def received_requests(self) -> list[dict]:
        """Every chat request body received so far (``record_requests=True``), oldest first."""
        if not self.record_requests:
            raise RuntimeError("FakeOpenAIServer(record_requests=True) records request bodies")
        with self._recorded_lock:
            return list(self._recorded)

    def reset_stats(self) -> None:
        """Zero the counters. Rule progress (which of a rule's ``faults`` comes next) is kept."""
        self._stats.reset()

    # ---- decisions (called on the server's event loop) -------------------------------------

    def _match(self, text: str) -> tuple[Rule | None, int]:
        """The first matching rule and how many earlier requests it matched."""
        with self._rules_lock:
            for index, rule in enumerate(self._rules):
                if rule.matches(text):
                    hits = self._rule_hits[index]
                    self._rule_hits[index] = hits + 1
                    return rule, hits
        return None, 0

    def _choose_fault(
        self, rule: Rule | None, rule_hits: int, key: str, attempt: int
    ) -> Fault | None:
        if rule is not None:
            if rule.always is not None:
                return rule.always
            if rule_hits < len(rule.faults):
                return rule.faults[rule_hits]
        if (
            self.permanent_fault_rate
            and stable_fraction(self.seed, "permanent", key) < self.permanent_fault_rate
        ):
            return PERMANENT_FAULT
        if self.transient_fault_rate and (
            stable_fraction(self.seed, "transient", f"{key}#{attempt}") < self.transient_fault_rate
        ):
            return self.transient_fault
        return None

    def _latency(self, rule: Rule | None, key: str, attempt: int) -> float:
        if rule is not None and rule.latency is not None:
            return rule.latency
        if not self.jitter:
            return self.latency
        return self.latency + self.jitter * stable_fraction(self.seed, "jitter", f"{key}#{attempt}")

    def _answer(self, rule: Rule | None, request: dict) -> str:
        if rule is not None and isinstance(rule.response, str):
            return rule.response
        if rule is not None and rule.response is not None:
            return rule.response(request)
        return self.responder(request)

    def _completion(self, request: dict, **fields: object) -> dict:
        return completion_body(
            request,
            completion_id=f"chatcmpl-fake-{next(self._ids)}",
            cost_per_token=self.usage_cost_per_token,
            cached_tokens=self.prompt_cache.cached_tokens(request) if self.prompt_cache else 0,
            **fields,  # type: ignore[arg-type]
        )

    # ---- routes ----------------------------------------------------------------------------

    async def _dispatch(self, request: web.BaseRequest) -> web.StreamResponse:
        route = self._routes.get((request.method, request.path))
        if route is None and self.batches.serves(request.path):
            route = self.batches.handle
        if route is None:
            message = f"unknown path: {request.method} {request.path}"
            return _json_response(404, error_body(404, message))
        try:
            return await route(request)
        except ConnectionError:  # the client went away mid-request: nobody to answer
            return _hang_up(request)

    async def _health(self, request: web.BaseRequest) -> web.StreamResponse:
        return _json_response(200, {"status": "ok"})

    async def _stats_json(self, request: web.BaseRequest) -> web.StreamResponse:
        return _raw_response(200, self.stats().model_dump_json().encode())

    async def _models(self, request: web.BaseRequest) -> web.StreamResponse:
        self.model_list_requests += 1  # only ever changed on the server's event loop
        refusal = self._refusal(request)
        if refusal is not None:
            return refusal
        if isinstance(self.model_list, bytes):
            return _raw_response(200, self.model_list)
        if self.model_list is not None:
            return _json_response(200, dict(self.model_list))
        return _json_response(200, models_body(self.model_ids))

    async def _reset(self, request: web.BaseRequest) -> web.StreamResponse:
        self.reset_stats()
        return _json_response(200, {"status": "reset"})

    # ---- chat completions ------------------------------------------------------------------

    def answer_offline(self, body: object) -> tuple[int, dict]:
        """A chat request answered without a connection (a batch's line): its HTTP status and
        JSON body. Counted, matched to rules and given faults like an online request; latency
        and the faults that only exist on a connection (a dropped connection, a malformed or
        truncated body) become an HTTP 500 line, a ``timeout`` fault a normal answer."""
        valid = isinstance(body, dict) and isinstance(body.get("messages"), list)
        if self.record_requests and isinstance(body, dict):
            with self._recorded_lock:
                self._recorded.append(body)
        key = prompt_key(body["messages"]) if valid else None
        attempt = self._stats.received(body if isinstance(body, dict) else None, key, set())
        if not valid or body.get("stream"):
            self._stats.bad_request()
            return 400, error_body(400, "body must be a JSON object with 'messages'")
        rule, rule_hits = self._match(messages_text(body["messages"]))
        fault = self._choose_fault(rule, rule_hits, key, attempt)
        if fault is not None:
            self._stats.fault(fault.kind)
            if fault.kind == "status":
                return fault.status, error_body(
                    fault.status, f"injected fault: HTTP {fault.status}"
                )
            if fault.kind in ("drop_connection", "malformed_json", "truncated_body"):
                return 500, error_body(500, f"injected fault: {fault.kind}")
        shape = None if fault is not None and fault.kind == "timeout" else fault
        reply = self._completion_reply(body, rule, shape)
        if isinstance(reply, web.Response):
            return 500, error_body(500, "responder failed")
        if fault is None:
            self._stats.completed()
        return 200, json.loads(reply)

    async def _chat(self, request: web.BaseRequest) -> web.StreamResponse:
        arrived = asyncio.get_running_loop().time()
        raw = await request.read()  # Content-Length or chunked
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        valid = isinstance(body, dict) and isinstance(body.get("messages"), list)
        if self.record_requests and isinstance(body, dict):
            with self._recorded_lock:
                self._recorded.append(body)
        key = prompt_key(body["messages"]) if valid else None
        attempt = self._stats.received(
            body if isinstance(body, dict) else None,
            key,
            {name.lower() for name in request.headers},
        )
        self._stats.begin()
        try:
            refusal = self._refusal(request, count=True)
            if refusal is not None:
                return refusal
            if not valid or body.get("stream"):
                self._stats.bad_request()
                why = (
                    "streaming is not supported"
                    if valid
                    else "body must be a JSON object with 'messages'"
                )
                return _json_response(400, error_body(400, why))
            return await self._answer_chat(request, body, key, attempt, arrived)
        finally:
            self._stats.end()

    async def _answer_chat(
        self, request: web.BaseRequest, body: dict, key: str, attempt: int, arrived: float
    ) -> web.StreamResponse:
        rule, rule_hits = self._match(messages_text(body["messages"]))
        fault = self._choose_fault(rule, rule_hits, key, attempt)
        # The reply is made before the wait: the latency counts from the request's arrival and
        # includes the server's own work, which would otherwise come on top of it.
        reply = self._completion_reply(body, rule, fault) if _answers(fault) else None
        wait = arrived + self._latency(rule, key, attempt) - asyncio.get_running_loop().time()
        if wait > 0:
            await asyncio.sleep(wait)
        if fault is None:
            return self._send_reply(request, reply, counts_as_completed=True)
        self._stats.fault(fault.kind)
        if fault.kind == "status":
            headers = JSON_HEADERS
            if fault.retry_after is not None:
                headers = {**JSON_HEADERS, "Retry-After": f"{fault.retry_after:g}"}
            error = error_body(fault.status, f"injected fault: HTTP {fault.status}")
            return _json_response(fault.status, error, headers)
        if fault.kind == "drop_connection":
            return _hang_up(request)
        if fault.kind == "malformed_json":
            return _raw_response(200, MALFORMED_JSON)
        if fault.kind == "timeout":
            await asyncio.sleep(fault.delay)
        if fault.kind == "truncated_body" and isinstance(reply, bytes):
            return await _send_truncated(request, reply)
        return self._send_reply(request, reply)

    def _send_reply(
        self,
        request: web.BaseRequest,
        reply: bytes | web.Response | None,
        *,
        counts_as_completed: bool = False,
    ) -> web.StreamResponse:
        """Send a reply made by ``_completion_reply``.

        A normal answer is counted before its bytes go out, so a client that has its reply never
        sees stats without it.
        """
        if isinstance(reply, web.Response):  # the responder failed: a 500
            return reply
        assert reply is not None
        if counts_as_completed:
            self._stats.completed()
        return _raw_response(200, reply)

    def _completion_reply(
        self, body: dict, rule: Rule | None, fault: Fault | None
    ) -> bytes | web.Response:
        """The (possibly fault-shaped) completion's JSON bytes, or a 500 when the responder fails."""
        kind = fault.kind if fault else None
        if kind in ("empty_content", "content_filter"):
            answer = ""
        else:
            try:
                answer = self._answer(rule, body)
            except Exception as err:  # a scripted responder's bug: report it, keep serving
                if not self._stats.fault_count("responder_error"):
                    traceback.print_exc(file=sys.stderr)  # once: a full stderr pipe would block
                self._stats.fault("responder_error")
                message = f"responder failed: {type(err).__name__}: {err}"
                return _json_response(500, error_body(500, message))
        completion = self._shaped_completion(body, kind, answer)
        return json.dumps(completion, ensure_ascii=False).encode("utf-8")

    def _shaped_completion(self, body: dict, kind: str | None, answer: str) -> dict:
        tool = forced_tool_name(body)
        if tool is not None and kind in (None, "malformed_arguments", "length"):
            # A request forcing a tool gets the answer as that tool call's arguments.
            arguments = answer[: len(answer) // 2] if kind else answer
            return self._completion(
                body,
                content=None,
                tool_call=(tool, arguments),
                finish_reason="length" if kind == "length" else "tool_calls",
            )
        if kind == "empty_content":
            return self._completion(body, content="")
        if kind == "content_filter":
            return self._completion(body, content=None, finish_reason="content_filter")
        if kind == "length":
            words = answer.split()
            prefix = " ".join(words[: max(1, len(words) // 2)])
            return self._completion(body, content=prefix, finish_reason="length")
        if kind == "reasoning_only":
            return self._completion(body, content=None, reasoning=REASONING_PREFIX + answer)
        return self._completion(body, content=answer)

    def _refusal(self, request: web.BaseRequest, *, count: bool = False) -> web.Response | None:
        """A 401 when an API key is expected and the request lacks it; None when it may pass."""
        if self.expected_api_key is None:
            return None
        # aiohttp decodes header bytes that are not UTF-8 as surrogates; encode them back as such.
        given = request.headers.get("Authorization", "").encode("utf-8", "surrogateescape")
        ok = hmac.compare_digest(given, f"Bearer {self.expected_api_key}".encode())
        if count:
            self._stats.auth(ok)
        return None if ok else _json_response(401, error_body(401, "invalid or missing API key"))


# ---- wire helpers ------------------------------------------------------------------------------


def _json_response(
    status: int, body: dict, headers: Mapping[str, str] = JSON_HEADERS
) -> web.Response:
    return web.Response(status=status, body=json.dumps(body).encode("utf-8"), headers=headers)


def _answers(fault: Fault | None) -> bool:
    """Whether the reply to a request with this fault (or none) carries a completion."""
    return fault is None or fault.kind not in ("status", "drop_connection", "malformed_json")


def _raw_response(status: int, payload: bytes) -> web.Response:
    return web.Response(status=status, body=payload, headers=JSON_HEADERS)


def _hang_up(request: web.BaseRequest) -> web.StreamResponse:
    """Close the connection without a response.

    aiohttp still tries to send the returned response, finds the transport closed and drops it
    quietly, as it does when a client disconnects.
    """
    _close_connection(request)
    return web.Response(status=200)


def _close_connection(request: web.BaseRequest) -> None:
    transport = request.transport
    if transport is not None:  # None: the client has closed it already
        transport.close()  # sends what was written, then FIN


async def _send_truncated(request: web.BaseRequest, payload: bytes) -> web.StreamResponse:
    """Announce the whole body, send half of it, then hang up."""
    response = web.StreamResponse(status=200, headers=JSON_HEADERS)
    response.content_length = len(payload)
    await response.prepare(request)
    await response.write(payload[: len(payload) // 2])
    _close_connection(request)
    return response


# ---- command line ------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m polistemics.testing.server",
        description="Serve a fake OpenAI-compatible API on 127.0.0.1 until SIGTERM or SIGINT.",
    )
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--jitter-ms", type=float, default=0.0, help="extra delay in [0, jitter)")
    parser.add_argument("--transient-fault-rate", type=float, default=0.0)
    parser.add_argument("--permanent-fault-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--usage-cost-per-token", type=float, default=None)
    parser.add_argument(
        "--batch-latency-ms", type=float, default=0.0, help="how long each batch takes"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        server = FakeOpenAIServer(
            latency=args.latency_ms / 1000,
            jitter=args.jitter_ms / 1000,
            transient_fault_rate=args.transient_fault_rate,
            permanent_fault_rate=args.permanent_fault_rate,
            seed=args.seed,
            usage_cost_per_token=args.usage_cost_per_token,
            port=args.port,
            batch_latency=args.batch_latency_ms / 1000,
        )
    except ServerConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    stop_requested = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop_requested.set())
    server.start()
    print(f"READY {server.base_url}", flush=True)
    try:
        while not stop_requested.wait(timeout=1.0):
            pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A real OpenAI-compatible HTTP server on 127.0.0.1 with scripted answers and injected faults.

Tests and benchmarks point an OpenAI client at ``server.base_url``. Answers come from the first
matching ``Rule`` or from the responder (by default ``polistemic_responder``); faults come from
rules or from the seeded transient/permanent fault rates. Decisions hash the prompt and its
attempt number, so they are the same across runs, thread interleavings and processes.

Run it in its own process with ``python -m polistemics.testing.server --latency-ms 50``; it
prints ``READY <base_url>`` and serves until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import contextlib
import hmac
import json
import signal
import socket
import socketserver
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count

from polistemics.testing.completions import (
    completion_body,
    error_body,
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
        self._port = port
        self._rules_lock = threading.Lock()
        self._rules: list[Rule] = []
        self._rule_hits: list[int] = []
        for rule in rules or []:
            self.add_rule(rule)
        self._stats = StatsRecorder()
        self._ids = count(1)
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle -------------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        if self._httpd is not None:
            raise RuntimeError("FakeOpenAIServer is already running")
        self._stopping = threading.Event()
        self._httpd = _HTTPServer(("127.0.0.1", self._port), _Handler, app=self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"fake-openai-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()  # wakes handlers sleeping in latency or timeout faults
        httpd.shutdown()
        with self._connections_lock:
            open_connections = list(self._connections)
        for conn in open_connections:  # ends keep-alive handler threads waiting for a request
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        httpd.server_close()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("FakeOpenAIServer is not running: call start() first")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # ---- configuration and counters --------------------------------------------------------

    def add_rule(self, rule: Rule) -> None:
        with self._rules_lock:
            self._rules.append(rule)
            self._rule_hits.append(0)

    def stats(self) -> ServerStats:
        return self._stats.snapshot()

    def reset_stats(self) -> None:
        """Zero the counters. Rule progress (which of a rule's ``faults`` comes next) is kept."""
        self._stats.reset()

    # ---- decisions (called from handler threads) -------------------------------------------

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
            **fields,  # type: ignore[arg-type]
        )

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless the server stops meanwhile; False means it is stopping."""
        if seconds <= 0:
            return not self._stopping.is_set()
        return not self._stopping.wait(seconds)

    def _track(self, conn: socket.socket, open_: bool) -> None:
        with self._connections_lock:
            if open_:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # stop() wakes and disconnects handlers instead of joining them
    request_queue_size = 512  # the default backlog of 5 refuses bursts of concurrent connects

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[BaseHTTPRequestHandler],
        *,
        app: FakeOpenAIServer,
    ) -> None:
        self.app = app
        super().__init__(address, handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host's FQDN, which can stall without DNS.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]


class _ClientGone(Exception):
    """The connection closed or the server is stopping; no response is possible."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    disable_nagle_algorithm = True  # headers and body go out as separate writes
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        self.server.app._track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.app._track(self.connection, False)

    def log_message(self, format: str, *args: object) -> None:
        pass  # one line per request would dominate a benchmark's cost

    # ---- routing ---------------------------------------------------------------------------

    def do_GET(self) -> None:
        self._guarded(self._route_get)

    def do_POST(self) -> None:
        self._guarded(self._route_post)

    def _guarded(self, route: Callable[[], None]) -> None:
        try:
            route()
        except (_ClientGone, ConnectionError, TimeoutError):
            self._close()

    def _route_get(self) -> None:
        app = self.server.app
        path = self.path.split("?", 1)[0]
        if path == "/health":
            self._send_json(200, {"status": "ok"})
        elif path == "/stats":
            self._send_raw(200, app.stats().model_dump_json().encode())
        elif path == "/v1/models":
            if self._authorized():
                self._send_json(200, models_body(app.model_ids))
        else:
            self._send_json(404, error_body(404, f"unknown path: GET {path}"))

    def _route_post(self) -> None:
        if self.headers.get("Transfer-Encoding"):
            # The body's end cannot be found without decoding chunks; refuse and hang up.
            error = error_body(411, "send the body with a Content-Length")
            self._send_json(411, error, {"Connection": "close"})
            return
        raw = self._read_body()
        path = self.path.split("?", 1)[0]
        if path == "/v1/chat/completions":
            self._chat(raw)
        elif path == "/reset":
            self.server.app.reset_stats()
            self._send_json(200, {"status": "reset"})
        else:
            self._send_json(404, error_body(404, f"unknown path: POST {path}"))

    # ---- chat completions ------------------------------------------------------------------

    def _chat(self, raw: bytes) -> None:
        app = self.server.app
        try:
            request = json.loads(raw)
        except ValueError:
            request = None
        valid = isinstance(request, dict) and isinstance(request.get("messages"), list)
        key = prompt_key(request["messages"]) if valid else None
        attempt = app._stats.received(
            request if isinstance(request, dict) else None, key, {h.lower() for h in self.headers}
        )
        app._stats.begin()
        try:
            if not self._authorized(count=True):
                return
            if not valid or request.get("stream"):
                app._stats.bad_request()
                why = (
                    "streaming is not supported"
                    if valid
                    else "body must be a JSON object with 'messages'"
                )
                self._send_json(400, error_body(400, why))
                return
            self._answer_chat(request, key, attempt)
        finally:
            app._stats.end()

    def _answer_chat(self, request: dict, key: str, attempt: int) -> None:
        app = self.server.app
        rule, rule_hits = app._match(messages_text(request["messages"]))
        fault = app._choose_fault(rule, rule_hits, key, attempt)
        if not app._sleep(app._latency(rule, key, attempt)):
            raise _ClientGone
        if fault is None:
            self._send_completion(request, rule, fault, counts_as_completed=True)
            return
        app._stats.fault(fault.kind)
        if fault.kind == "status":
            headers = {}
            if fault.retry_after is not None:
                headers["Retry-After"] = f"{fault.retry_after:g}"
            self._send_json(
                fault.status,
                error_body(fault.status, f"injected fault: HTTP {fault.status}"),
                headers,
            )
        elif fault.kind == "drop_connection":
            self._close()
        elif fault.kind == "malformed_json":
            self._send_raw(200, MALFORMED_JSON)
        elif fault.kind == "timeout":
            if not app._sleep(fault.delay):
                raise _ClientGone
            self._send_completion(request, rule, fault)
        else:
            self._send_completion(request, rule, fault)

    def _send_completion(
        self,
        request: dict,
        rule: Rule | None,
        fault: Fault | None,
        *,
        counts_as_completed: bool = False,
    ) -> bool:
        """Send the (possibly fault-shaped) answer; False if the responder failed (a 500 went out).

        A normal answer is counted before its bytes go out, so a client that has its reply never
        sees stats without it.
        """
        app = self.server.app
        kind = fault.kind if fault else None
        if kind in ("empty_content", "content_filter"):
            answer = ""
        else:
            try:
                answer = app._answer(rule, request)
            except Exception as err:  # a scripted responder's bug: report it, keep serving
                if not app._stats.fault_count("responder_error"):
                    traceback.print_exc(file=sys.stderr)  # once: a full stderr pipe would block
                app._stats.fault("responder_error")
                self._send_json(
                    500, error_body(500, f"responder failed: {type(err).__name__}: {err}")
                )
                return False
        if kind == "empty_content":
            body = app._completion(request, content="")
        elif kind == "content_filter":
            body = app._completion(request, content=None, finish_reason="content_filter")
        elif kind == "length":
            words = answer.split()
            body = app._completion(
                request, content=" ".join(words[: max(1, len(words) // 2)]), finish_reason="length"
            )
        elif kind == "reasoning_only":
            body = app._completion(request, content=None, reasoning=REASONING_PREFIX + answer)
        else:
            body = app._completion(request, content=answer)
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        if counts_as_completed:
            app._stats.completed()
        if kind == "truncated_body":
            self._send_truncated(payload)
        else:
            self._send_raw(200, payload)
        return True

    # ---- wire helpers ----------------------------------------------------------------------

    def _authorized(self, count: bool = False) -> bool:
        """Check the bearer key when one is expected; answer 401 and return False otherwise."""
        app = self.server.app
        if app.expected_api_key is None:
            return True
        given = self.headers.get("Authorization", "")
        ok = hmac.compare_digest(given.encode(), f"Bearer {app.expected_api_key}".encode())
        if count:
            app._stats.auth(ok)
        if not ok:
            self._send_json(401, error_body(401, "invalid or missing API key"))
        return ok

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _send_json(self, status: int, body: dict, headers: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(body).encode("utf-8"), headers)

    def _send_raw(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def _send_truncated(self, payload: bytes) -> None:
        """Announce the whole body, send half of it, then hang up."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload[: len(payload) // 2])
        self._close()

    def _close(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


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

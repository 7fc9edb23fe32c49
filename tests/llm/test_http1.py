"""The HTTP/1.1 client against scripted servers: framing, keep-alive, failures, TLS and proxies."""

from __future__ import annotations

import asyncio
import gc
import gzip
import re
import ssl
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import pytest
import trustme

from polistemics.llm.http1 import (
    ConnectionFailed,
    ConnectionPool,
    Headers,
    RequestTimeout,
)

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@dataclass
class Served:
    """A scripted server's port and what it saw."""

    port: int
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1/chat/completions"


async def read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = re.search(rb"(?i)content-length: *(\d+)", head)
    return head + await reader.readexactly(int(length.group(1)) if length else 0)


def reply(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    lines = [f"HTTP/1.1 {status}", *headers]
    if not any(h.lower().startswith(("content-length", "transfer-encoding")) for h in headers):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


@asynccontextmanager
async def serve(
    handler: Callable[[Served, asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
    ssl_context: ssl.SSLContext | None = None,
) -> AsyncIterator[Served]:
    served = Served(0)

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        served.connections += 1
        try:
            await handler(served, reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0, ssl=ssl_context)
    served.port = server.sockets[0].getsockname()[1]
    async with server:
        yield served


def keep_alive(answer: Callable[[bytes], bytes]):
    """A handler that answers every request on a connection until the client closes it."""

    async def handler(served: Served, reader, writer) -> None:
        while True:
            request = await read_request(reader)
            served.requests.append(request)
            writer.write(answer(request))
            await writer.drain()

    return handler


HEAD = b"POST /v1/chat/completions HTTP/1.1\r\nHost: test\r\n"


async def post(pool: ConnectionPool, body: bytes = b"{}", timeout: float = 5.0):
    return await pool.request(HEAD, body, timeout=timeout)


def run(coro: Awaitable) -> object:
    return asyncio.run(coro)


# ---- framing -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        reply(b'{"a": 1}', "Content-Type: application/json"),
        b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{"a\r\n5\r\n": 1}\r\n0\r\n\r\n',
        reply(gzip.compress(b'{"a": 1}'), "Content-Encoding: gzip"),
        reply(zlib.compress(b'{"a": 1}'), "Content-Encoding: deflate"),
        b"HTTP/1.1 100 Continue\r\n\r\n" + reply(b'{"a": 1}'),
    ],
    ids=["content-length", "chunked", "gzip", "deflate", "after-100-continue"],
)
def test_each_framing_gives_the_whole_body(raw: bytes) -> None:
    async def go() -> None:
        async with serve(keep_alive(lambda _: raw)) as served:
            pool = ConnectionPool(served.url)
            response = await post(pool, b'{"q": 1}')
            await pool.close()
        assert response.status == 200
        assert response.body == b'{"a": 1}'
        assert served.requests[0].endswith(b"Content-Length: 8\r\n\r\n" + b'{"q": 1}')

    run(go())


def test_a_body_without_length_is_read_until_the_connection_closes() -> None:
    async def handler(served: Served, reader, writer) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\npart one, ")
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.write(b"part two")
        await writer.drain()

    async def go() -> None:
        async with serve(handler) as served:
            pool = ConnectionPool(served.url)
            first = await post(pool)
            second = await post(pool)  # not kept alive: a new connection
            await pool.close()
        assert first.body == second.body == b"part one, part two"
        assert served.connections == 2

    run(go())


def test_headers_are_found_in_any_case() -> None:
    headers = Headers([(b"Retry-After", b"7"), (b"X-Twice", b"1"), (b"x-twice", b"2")])
    assert headers["retry-after"] == headers["RETRY-AFTER"] == "7"
    assert headers["X-Twice"] == "2"
    assert "retry-after" in headers and len(headers) == 2


# ---- keep-alive --------------------------------------------------------------------------------


def test_sequential_requests_share_one_connection_and_concurrent_ones_open_more() -> None:
    async def go() -> None:
        async with serve(keep_alive(lambda _: reply(b"{}"))) as served:
            pool = ConnectionPool(served.url)
            for _ in range(5):
                await post(pool)
            assert served.connections == 1
            await asyncio.gather(*(post(pool) for _ in range(4)))
            await pool.close()
        assert served.connections == 4
        assert len(served.requests) == 9

    run(go())


def test_a_connection_the_server_closed_while_idle_is_replaced_without_an_error() -> None:
    async def one_request_per_connection(served: Served, reader, writer) -> None:
        served.requests.append(await read_request(reader))
        writer.write(reply(b"{}"))  # keep-alive by default, yet the server hangs up after it
        await writer.drain()

    async def go() -> None:
        async with serve(one_request_per_connection) as served:
            pool = ConnectionPool(served.url)
            await post(pool)
            await asyncio.sleep(0.05)  # the close reaches the client
            await post(pool)
            # The same race without the pause: the second request may go out on the closing
            # connection; it is sent again on a new one.
            await post(pool)
            await pool.close()
        assert len(served.requests) == 3 and served.connections == 3

    run(go())


# ---- failures ----------------------------------------------------------------------------------


async def hang_up(served: Served, reader, writer) -> None:
    served.requests.append(await read_request(reader))


async def cut_short(served: Served, reader, writer) -> None:
    await read_request(reader)
    writer.write(reply(b'{"long": "body"}')[:-5])
    await writer.drain()


@pytest.mark.parametrize(
    ("handler", "message"),
    [
        # A new connection closed before any response byte is an error (a reused one is retried).
        (hang_up, "closed before the response"),
        (cut_short, "middle of the response"),
        (keep_alive(lambda _: b"SSH-2.0-OpenSSH_9.2\r\n\r\n"), "bad HTTP response"),
        (
            keep_alive(lambda _: reply(b"\x00\x01", "Content-Encoding: br")),
            "unsupported Content-Encoding 'br'",
        ),
    ],
    ids=["hang-up", "cut-short", "not-http", "unknown-encoding"],
)
def test_a_broken_response_is_a_connection_failure(handler, message: str) -> None:
    async def go() -> None:
        async with serve(handler) as served:
            pool = ConnectionPool(served.url)
            with pytest.raises(ConnectionFailed, match=message):
                await post(pool)
            await pool.close()
        assert served.connections == 1  # not tried again

    run(go())


def test_a_slow_response_times_out_and_its_connection_is_not_reused() -> None:
    async def slow_then_fast(served: Served, reader, writer) -> None:
        served.requests.append(await read_request(reader))
        if len(served.requests) == 1:
            await asyncio.sleep(1.0)
        writer.write(reply(b"{}"))
        await writer.drain()
        await reader.read()  # wait for the client to close

    async def go() -> None:
        async with serve(slow_then_fast) as served:
            pool = ConnectionPool(served.url)
            with pytest.raises(RequestTimeout, match="timed out after 0.2s"):
                await post(pool, timeout=0.2)
            assert (await post(pool)).status == 200
            await pool.close()
        assert served.connections == 2

    run(go())


def test_a_cancelled_request_does_not_leave_its_connection_in_the_pool() -> None:
    async def slow(served: Served, reader, writer) -> None:
        while True:
            served.requests.append(await read_request(reader))
            await asyncio.sleep(0.3 if len(served.requests) == 1 else 0)
            writer.write(reply(b'{"n": %d}' % len(served.requests)))
            await writer.drain()

    async def go() -> None:
        async with serve(slow) as served:
            pool = ConnectionPool(served.url)
            task = asyncio.create_task(post(pool))
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # A reused connection would deliver the first request's late answer here.
            assert (await post(pool)).body == b'{"n": 2}'
            await pool.close()
        assert served.connections == 2

    run(go())


def test_a_refused_connection_names_the_address() -> None:
    async def go() -> None:
        async with serve(keep_alive(lambda _: b"")) as served:
            port = served.port
        pool = ConnectionPool(f"http://127.0.0.1:{port}/v1")  # nobody listens there any more
        with pytest.raises(ConnectionFailed, match=f"cannot connect to 127.0.0.1:{port}"):
            await post(pool)

    run(go())


def test_the_pool_works_across_event_loops() -> None:
    async def go(pool: ConnectionPool | None, url: str) -> ConnectionPool:
        pool = pool or ConnectionPool(url)
        assert (await post(pool)).status == 200
        return pool

    async def both() -> None:
        async with serve(keep_alive(lambda _: reply(b"{}"))) as served:
            # Each asyncio.run is a new loop; the pool must not reuse the old loop's connections.
            pool = await asyncio.to_thread(asyncio.run, go(None, served.url))
            await asyncio.to_thread(asyncio.run, go(pool, served.url))
        assert served.connections == 2

    run(both())


# ---- TLS and proxies ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


def tls_server_context(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost", "127.0.0.1").configure_cert(context)
    return context


def tls_client_context(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.create_default_context()
    ca.configure_trust(context)
    return context


def test_https_verifies_the_certificate(authority: trustme.CA) -> None:
    async def go() -> None:
        handler = keep_alive(lambda _: reply(b'{"secure": true}'))
        async with serve(handler, tls_server_context(authority)) as served:
            url = f"https://localhost:{served.port}/v1/chat/completions"
            trusted = ConnectionPool(url, ssl_context=tls_client_context(authority))
            assert (await post(trusted)).body == b'{"secure": true}'
            await trusted.close()
            untrusted = ConnectionPool(url)  # the system's CAs do not know the test CA
            with pytest.raises(ConnectionFailed, match="CERTIFICATE_VERIFY_FAILED"):
                await post(untrusted)
        assert b"Host: test" in served.requests[0]

    run(go())


async def forwarding_proxy(served: Served, reader, writer) -> None:
    """A plain HTTP proxy: forwards absolute-form requests, tunnels CONNECT, refuses 'deny'."""
    head = await reader.readuntil(b"\r\n\r\n")
    served.requests.append(head)
    method, target, _ = head.split(b"\r\n", 1)[0].split(b" ")
    if b"deny" in target:
        writer.write(reply(b"", status="407 Proxy Authentication Required"))
        await writer.drain()
        return
    if method == b"CONNECT":
        host, port = target.rsplit(b":", 1)
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", int(port))
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
    else:
        port = int(re.match(rb"http://[^:/]+:(\d+)", target).group(1))
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", port)
        upstream_writer.write(head)

    async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
        sink.close()

    try:
        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))
    finally:
        upstream_writer.close()


def test_plain_http_goes_through_the_proxy_in_absolute_form_with_credentials() -> None:
    async def go() -> None:
        async with (
            serve(keep_alive(lambda _: reply(b'{"via": "proxy"}'))) as origin,
            serve(forwarding_proxy) as proxy,
        ):
            pool = ConnectionPool(origin.url, proxy=f"http://user:p%40ss@127.0.0.1:{proxy.port}")
            target = pool.request_target("/v1/chat/completions").encode()
            head = b"POST " + target + b" HTTP/1.1\r\n" + pool.header_lines({})
            response = await pool.request(head, b"{}", timeout=5)
            await pool.close()
        assert response.body == b'{"via": "proxy"}'
        seen = proxy.requests[0]
        assert seen.startswith(f"POST http://127.0.0.1:{origin.port}/v1/chat/completions ".encode())
        assert b"Proxy-Authorization: Basic dXNlcjpwQHNz\r\n" in seen  # user:p@ss

    run(go())


def test_https_goes_through_a_connect_tunnel(authority: trustme.CA) -> None:
    async def go() -> None:
        handler = keep_alive(lambda _: reply(b'{"tunnel": true}'))
        async with (
            serve(handler, tls_server_context(authority)) as origin,
            serve(forwarding_proxy) as proxy,
        ):
            url = f"https://localhost:{origin.port}/v1/chat/completions"
            context = tls_client_context(authority)
            pool = ConnectionPool(url, ssl_context=context, proxy=f"http://127.0.0.1:{proxy.port}")
            assert pool.request_target("/v1") == "/v1"  # the origin itself reads the request
            assert (await post(pool)).body == b'{"tunnel": true}'
            await pool.close()
            denied = ConnectionPool(
                f"https://deny:{origin.port}/v1",
                ssl_context=context,
                proxy=f"http://127.0.0.1:{proxy.port}",
            )
            with pytest.raises(ConnectionFailed, match="proxy refused to tunnel.*HTTP 407"):
                await post(denied)
        assert proxy.requests[0].startswith(f"CONNECT localhost:{origin.port} HTTP/1.1".encode())

    run(go())


def test_only_http_proxies_and_http_urls_are_accepted() -> None:
    with pytest.raises(ValueError, match="only http:// proxies"):
        ConnectionPool("https://api.example.org/v1", proxy="socks5://127.0.0.1:1080")
    with pytest.raises(ValueError, match="not an http"):
        ConnectionPool("ftp://example.org/v1")


def test_finished_requests_leave_no_garbage_cycles() -> None:
    """At ~1,000 calls a second, cycles per request would keep the cyclic collector busy."""

    async def go() -> None:
        async with serve(keep_alive(lambda _: reply(b"{}"))) as served:
            pool = ConnectionPool(served.url)
            for _ in range(20):
                await post(pool)
            await pool.close()

    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds stays in gc.garbage
    try:
        run(go())
        gc.collect()
        kinds = {type(obj).__name__ for obj in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert not kinds & {"_Reply", "HttpResponseParser", "Response", "Headers"}

"""A lean HTTP/1.1 client for one origin: keep-alive connections, TLS and HTTP proxies.

The chat transport sends ~100,000 small POSTs per study, up to 64 at a time. A general client
(aiohttp, httpx) schedules each request's body write and response read as separate steps of the
event loop and keeps per-request bookkeeping; against a 50 ms endpoint at 64 concurrent that was
~0.2 ms CPU and ~1.2 ms of added latency per call on a 2-core machine. Here a request is one
``transport.write`` and the response is parsed as its bytes arrive by llhttp (``httptools``, the
parser uvicorn uses), so a call costs one wake-up of the waiting coroutine.

What it does: Content-Length and chunked responses, bodies read until close, gzip/deflate,
1xx responses skipped, keep-alive with a transparent second try when a reused connection turns
out closed by the server before any response byte, idle connections dropped after a while, an
overall timeout (connecting included), TLS with SNI, and plain-HTTP proxies (absolute-form
requests for ``http://`` origins, a CONNECT tunnel for ``https://`` ones, Basic proxy auth).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import socket
import ssl
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import httptools

IDLE_SECONDS = 15.0  # a connection idle longer is closed: servers drop idle ones after 5-75 s
DEFAULT_PORTS = {"http": 80, "https": 443}


class TransportError(Exception):
    """A request that produced no usable response."""


class ConnectionFailed(TransportError):
    """The connection could not be made, or broke before the response was complete."""


class RequestTimeout(TransportError):
    """No complete response within the timeout."""


class _StaleConnection(ConnectionFailed):
    """A reused connection closed before any byte of the response arrived."""


class Headers(Mapping[str, str]):
    """Response headers, looked up by name in any case; a repeated header keeps its last value."""

    def __init__(self, pairs: list[tuple[bytes, bytes]]):
        self._values = {
            name.decode("latin-1").lower(): value.decode("latin-1") for name, value in pairs
        }

    def __getitem__(self, name: str) -> str:
        return self._values[name.lower()]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Headers({self._values!r})"


@dataclass(frozen=True)
class Response:
    status: int
    headers: Headers
    body: bytes


@dataclass(frozen=True)
class Origin:
    """Where a URL's requests go: scheme, host and port."""

    scheme: str
    host: str
    port: int

    @classmethod
    def of(cls, url: str) -> Origin:
        parts = urlsplit(url)
        if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        return cls(parts.scheme, parts.hostname, parts.port or DEFAULT_PORTS[parts.scheme])

    @property
    def authority(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host  # an IPv6 literal
        return host if self.port == DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"


class _Reply:
    """One response being read: llhttp calls these methods back as its bytes arrive."""

    def __init__(self, waiter: asyncio.Future[Response]):
        self.waiter = waiter
        # The parser calls back into this object: a reference cycle, broken once the response
        # is settled so that reference counting frees both (the cyclic collector need not).
        self.parser: httptools.HttpResponseParser | None = httptools.HttpResponseParser(self)
        self.got_bytes = False
        self.keep_alive = False
        self._headers: list[tuple[bytes, bytes]] = []
        self._body: list[bytes] = []
        self._headers_done = False
        self._until_close = (
            False  # no Content-Length, not chunked: the body ends with the connection
        )

    # -- httptools callbacks -----------------------------------------------------------------

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.append((name, value))

    def on_headers_complete(self) -> None:
        self._headers_done = True
        names = {name.lower() for name, _ in self._headers}
        self._until_close = b"content-length" not in names and b"transfer-encoding" not in names

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        if self.parser is None:  # a second response in the same bytes: out of step
            self.keep_alive = False
            return
        status = self.parser.get_status_code()
        if 100 <= status < 200:  # an interim response (100 Continue, 103 Early Hints): read on
            self._headers, self._body, self._headers_done = [], [], False
            return
        self.keep_alive = self.parser.should_keep_alive()
        self._finish(status)

    # -- driven by the connection ------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        self.got_bytes = True
        parser = self.parser
        if parser is None:  # bytes after the settled response: the connection is out of step
            self.keep_alive = False
            return
        try:
            parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self.fail(ConnectionFailed("bad HTTP response: unexpected protocol upgrade"))
        except httptools.HttpParserError as exc:
            self.fail(ConnectionFailed(f"bad HTTP response: {exc}"))

    def connection_lost(self, exc: Exception | None) -> None:
        if self.waiter.done():
            return
        if self._headers_done and self._until_close:
            self._finish(self.parser.get_status_code())
            return
        why = f": {exc}" if exc else ""
        if not self.got_bytes:
            self.fail(_StaleConnection(f"connection closed before the response{why}"))
        else:
            self.fail(ConnectionFailed(f"connection closed in the middle of the response{why}"))

    def fail(self, error: Exception) -> None:
        self.parser = None
        if not self.waiter.done():
            self.waiter.set_exception(error)

    def _finish(self, status: int) -> None:
        if self.waiter.done():
            return
        self.parser = None
        headers = Headers(self._headers)
        try:
            body = _decoded(b"".join(self._body), headers.get("content-encoding", ""))
        except (zlib.error, ValueError) as exc:
            self.fail(ConnectionFailed(f"bad HTTP response body: {exc}"))
            return
        self.waiter.set_result(Response(status, headers, body))


def _decoded(body: bytes, encoding: str) -> bytes:
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompress(body, wbits=16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        try:
            return zlib.decompress(body)  # zlib-wrapped, as the standard says
        except zlib.error:
            return zlib.decompress(body, wbits=-zlib.MAX_WBITS)  # raw deflate, as some send
    raise ValueError(f"unsupported Content-Encoding {encoding!r}")


class _TunnelReply:
    """The proxy's answer to CONNECT: a status line and headers, after which the tunnel starts."""

    def __init__(self, waiter: asyncio.Future[int]):
        self.waiter = waiter
        self.got_bytes = False
        self._buffer = b""

    def feed(self, data: bytes) -> None:
        self.got_bytes = True
        self._buffer += data
        if b"\r\n\r\n" not in self._buffer or self.waiter.done():
            return
        status_line = self._buffer.split(b"\r\n", 1)[0].split()
        if len(status_line) >= 2 and status_line[1].isdigit():
            self.waiter.set_result(int(status_line[1]))
        else:
            self.waiter.set_exception(ConnectionFailed("bad answer from the proxy to CONNECT"))

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.waiter.done():
            self.waiter.set_exception(ConnectionFailed("the proxy closed the connection"))

    def fail(self, error: Exception) -> None:
        if not self.waiter.done():
            self.waiter.set_exception(error)


class _Connection(asyncio.Protocol):
    """One TCP (or TLS) connection; it reads the response of the request it last sent."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.idle_since = 0.0
        self.reply: _Reply | _TunnelReply | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self.reply is None:  # bytes nobody asked for: the connection is out of step
            self.close()
            return
        self.reply.feed(data)

    def eof_received(self) -> bool:
        return False  # close our side too; connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.reply is not None:
            self.reply.connection_lost(exc)

    def send(self, data: bytes, reply: _Reply | _TunnelReply) -> None:
        self.reply = reply
        assert self.transport is not None
        self.transport.write(data)

    def close(self) -> None:
        self.closed = True
        if self.transport is None:
            return
        try:
            self.transport.abort()  # no graceful close: the other side may be mid-response
        except RuntimeError:  # its event loop is closed: end the connection, the GC frees it
            sock = self.transport.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


class ConnectionPool:
    """Keep-alive connections to one origin, directly or through an HTTP proxy.

    Connections belong to the event loop that made them; used from a new loop, the pool starts
    afresh. Concurrency is the caller's business: a request without an idle connection opens one.
    """

    def __init__(
        self,
        url: str,
        *,
        ssl_context: ssl.SSLContext | None = None,
        proxy: str | None = None,
    ):
        self.origin = Origin.of(url)
        if self.origin.scheme == "https" and ssl_context is None:
            ssl_context = ssl.create_default_context()
        self._ssl = ssl_context if self.origin.scheme == "https" else None
        if proxy and urlsplit(proxy).scheme != "http":
            raise ValueError(f"only http:// proxies are supported, not {proxy!r}")
        self._proxy = Origin.of(proxy) if proxy else None
        self._proxy_auth = _basic_auth(proxy) if proxy else None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._idle: list[_Connection] = []
        self._open: set[_Connection] = set()

    def request_target(self, path: str) -> str:
        """The request line's target: absolute when a proxy forwards plain HTTP, else the path."""
        if self._proxy is not None and self._ssl is None:
            return f"{self.origin.scheme}://{self.origin.authority}{path}"
        return path

    def header_lines(self, headers: Mapping[str, str]) -> bytes:
        """Host, the given headers and any proxy credentials, encoded once for many requests."""
        lines = [f"Host: {self.origin.authority}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if self._proxy_auth and self._ssl is None:  # through a tunnel the proxy sees no headers
            lines.append(f"Proxy-Authorization: {self._proxy_auth}")
        return "".join(line + "\r\n" for line in lines).encode("latin-1")

    async def request(self, head: bytes, body: bytes, *, timeout: float) -> Response:
        """Send ``head`` (request line and headers, without Content-Length) and ``body``."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._forget_connections()
            self._loop = loop
        deadline = loop.time() + timeout
        data = b"%sContent-Length: %d\r\n\r\n%s" % (head, len(body), body)
        while True:
            connection = self._take_idle(loop.time())
            reused = connection is not None
            if connection is None:
                connection = await self._connect(deadline, timeout)
            try:
                return await self._exchange(connection, data, deadline, timeout)
            except _StaleConnection as exc:
                if reused:
                    continue  # the server had closed it while idle: try again on a new one
                raise ConnectionFailed(str(exc)) from exc

    async def close(self) -> None:
        self._forget_connections()

    # -- internals -----------------------------------------------------------------------------

    def _take_idle(self, now: float) -> _Connection | None:
        while self._idle:
            connection = self._idle.pop()  # the most recently used: the least likely to be stale
            if (
                not connection.closed
                and connection.transport is not None
                and not connection.transport.is_closing()
                and now - connection.idle_since < IDLE_SECONDS
            ):
                return connection
            self._discard(connection)
        return None

    async def _exchange(
        self, connection: _Connection, data: bytes, deadline: float, timeout: float
    ) -> Response:
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[Response] = loop.create_future()
        reply = _Reply(waiter)
        timer = loop.call_at(deadline, _time_out, reply, timeout)
        reusable = False
        try:
            connection.send(data, reply)
            response = await waiter
            reusable = reply.keep_alive
            return response
        finally:
            timer.cancel()
            connection.reply = None
            if reusable and not connection.closed:
                connection.idle_since = loop.time()
                self._idle.append(connection)
            else:
                self._discard(connection)

    async def _connect(self, deadline: float, timeout: float) -> _Connection:
        target = self._proxy or self.origin
        connection = _Connection()
        self._open.add(connection)
        try:
            async with asyncio.timeout_at(deadline):
                await self._open_connection(connection, target)
        except BaseException as exc:
            self._discard(connection)
            if isinstance(exc, TimeoutError):
                raise RequestTimeout(f"timed out after {timeout:g}s while connecting") from exc
            if isinstance(exc, OSError):  # refused, unreachable, name not found, TLS failures
                via = f" via proxy {target.authority}" if self._proxy else ""
                raise ConnectionFailed(
                    f"cannot connect to {self.origin.authority}{via}: {exc}"
                ) from exc
            raise
        return connection

    async def _open_connection(self, connection: _Connection, target: Origin) -> None:
        loop = asyncio.get_running_loop()
        if self._proxy is None or self._ssl is None:
            await loop.create_connection(
                lambda: connection,
                target.host,
                target.port,
                ssl=self._ssl,
                server_hostname=self.origin.host if self._ssl else None,
            )
            return
        transport, _ = await loop.create_connection(lambda: connection, target.host, target.port)
        await self._tunnel(connection)
        tls = await loop.start_tls(
            transport, connection, self._ssl, server_hostname=self.origin.host
        )
        connection.transport = tls  # type: ignore[assignment]

    async def _tunnel(self, connection: _Connection) -> None:
        waiter: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        authority = f"{self.origin.host}:{self.origin.port}"
        lines = [f"CONNECT {authority} HTTP/1.1", f"Host: {authority}"]
        if self._proxy_auth:
            lines.append(f"Proxy-Authorization: {self._proxy_auth}")
        connection.send(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"), _TunnelReply(waiter))
        try:
            status = await waiter
        finally:
            connection.reply = None
        if not 200 <= status < 300:
            raise ConnectionFailed(f"the proxy refused to tunnel to {authority}: HTTP {status}")

    def _discard(self, connection: _Connection) -> None:
        connection.close()
        self._open.discard(connection)

    def _forget_connections(self) -> None:
        for connection in list(self._open):
            connection.close()
        self._open.clear()
        self._idle.clear()


def _time_out(reply: _Reply, timeout: float) -> None:
    # The error is made only when it happens: ~100,000 requests a run do not time out.
    reply.fail(RequestTimeout(f"timed out after {timeout:g}s"))


def _basic_auth(proxy: str) -> str | None:
    parts = urlsplit(proxy)
    if parts.username is None:
        return None
    credentials = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
    return "Basic " + base64.b64encode(credentials.encode()).decode("ascii")

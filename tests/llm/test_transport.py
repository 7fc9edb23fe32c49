"""The HTTP transport: JSON in and out, each kind of failure as its own error type, keep-alive,
compressed bodies, TLS and proxies, against the test server and local scripted servers."""

from __future__ import annotations

import asyncio
import gzip
import re
import ssl
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import pytest
import trustme

from polistemics import __version__
from polistemics.llm.keys import canonical_json
from polistemics.llm.transport import (
    MAX_REPLY_BYTES,
    ChatTransport,
    ConnectionFailed,
    HttpStatusError,
    MalformedBody,
    ReplyTooLarge,
    RequestTimeout,
    UnsupportedProxy,
    _error_message,
    env_proxy,
    masked_url,
)
from polistemics.testing import FakeOpenAIServer, Fault, Rule

BODY = {"model": "fake-model", "temperature": 0.0}


def post(server: FakeOpenAIServer, text: str, *, timeout: float = 5.0) -> dict:
    async def go() -> dict:
        transport = ChatTransport(server.base_url, "sk-transport", timeout=timeout)
        try:
            messages = [{"role": "user", "content": text}]
            return await transport.post(BODY, canonical_json(messages))
        finally:
            await transport.close()

    return asyncio.run(go())


def test_answer_comes_back_as_json_with_the_key_and_agent_sent() -> None:
    with FakeOpenAIServer([Rule("q", response="an answer")], expected_api_key="sk-transport") as s:
        reply = post(s, "q «ü»")
        assert reply["choices"][0]["message"]["content"] == "an answer"
        stats = s.stats()
        # The body the server received: the fields given plus the spliced-in messages.
        assert stats.last_requests[-1] == {
            **BODY,
            "messages": [{"role": "user", "content": "q «ü»"}],
        }
        assert stats.authorized == 1 and stats.unauthorized == 0
        assert {"authorization", "user-agent", "content-type"} <= stats.request_headers_seen


def test_status_errors_carry_the_providers_message_and_headers() -> None:
    limited = Fault("status", status=429, retry_after=7)
    with (
        FakeOpenAIServer([Rule("limited", always=limited)]) as s,
        pytest.raises(HttpStatusError) as error,
    ):
        post(s, "limited")
    assert error.value.status == 429
    assert error.value.message == "injected fault: HTTP 429"
    assert error.value.headers["Retry-After"] == "7"


@pytest.mark.parametrize(
    ("fault", "error_type"),
    [
        (Fault("truncated_body"), ConnectionFailed),
        (Fault("drop_connection"), ConnectionFailed),
        (Fault("malformed_json"), MalformedBody),
        (Fault("timeout", delay=3.0), RequestTimeout),
    ],
)
def test_each_failure_has_its_own_type(fault: Fault, error_type: type) -> None:
    with FakeOpenAIServer([Rule("x", always=fault)]) as s, pytest.raises(error_type):
        post(s, "x", timeout=0.5)


def test_proxy_comes_from_the_environment_and_no_proxy_is_respected(monkeypatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    remote = "https://api.example.org/v1/chat/completions"
    assert env_proxy(remote) is None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    assert env_proxy(remote) == "http://proxy.internal:3128"
    assert env_proxy("https://127.0.0.1:8080/v1/chat/completions") is None
    monkeypatch.setenv("HTTPS_PROXY", "socks5://127.0.0.1:1080")
    with pytest.raises(UnsupportedProxy, match="HTTPS_PROXY is 'socks5://127.0.0.1:1080'"):
        env_proxy(remote)


def test_an_unsupported_proxy_is_named_with_its_password_masked(monkeypatch) -> None:
    clear_proxy_environment(monkeypatch)
    monkeypatch.setenv("HTTPS_PROXY", "socks5://alice:hunter2@proxy.internal:1080")
    with pytest.raises(UnsupportedProxy) as error:
        env_proxy("https://api.example.org/v1/chat/completions")
    assert "'socks5://alice:***@proxy.internal:1080'" in str(error.value)
    assert "hunter2" not in str(error.value)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://user:p%40ss@proxy:3128", "http://user:***@proxy:3128"),
        ("http://user:@proxy:3128", "http://user:***@proxy:3128"),
        ("http://user@proxy:3128", "http://user@proxy:3128"),
        ("http://proxy:3128", "http://proxy:3128"),
        ("http://user:secret@proxy:notaport", "http://user:***@proxy:notaport"),
    ],
)
def test_masked_urls_show_no_password(url: str, shown: str) -> None:
    assert masked_url(url) == shown


def test_error_message_is_not_cut_short_here() -> None:
    # The client layer redacts keys first, then cuts: a cut here could leave part of a key.
    long = "x" * 5000 + " Bearer sk-end"
    assert _error_message(f'{{"error": {{"message": "{long}"}}}}'.encode()) == long
    assert _error_message(long.encode()) == long


def test_error_message_prefers_the_providers_text() -> None:
    assert _error_message(b'{"error": {"message": "quota exceeded", "code": 402}}') == (
        "quota exceeded"
    )
    assert _error_message(b'{"error": "plain string"}') == "plain string"
    assert _error_message(b"<html>Bad Gateway</html>") == "<html>Bad Gateway</html>"
    assert _error_message(b"") == "(empty body)"


# ---- scripted servers --------------------------------------------------------------------------


def clear_proxy_environment(monkeypatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


@pytest.fixture(autouse=True)
def no_proxy_from_the_machine(monkeypatch) -> None:
    clear_proxy_environment(monkeypatch)


@dataclass
class Served:
    """A scripted server's port and what it saw."""

    port: int
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


ScriptedHandler = Callable[[Served, asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = re.search(rb"(?i)content-length: *(\d+)", head)
    return head + await reader.readexactly(int(length.group(1)) if length else 0)


def reply(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    lines = [f"HTTP/1.1 {status}", *headers, f"Content-Length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


@asynccontextmanager
async def serve(
    handler: ScriptedHandler, ssl_context: ssl.SSLContext | None = None
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


def keep_alive(answer: Callable[[bytes], bytes], delay: float = 0.0) -> ScriptedHandler:
    """A handler that answers every request on a connection until the client closes it."""

    async def handler(served: Served, reader, writer) -> None:
        while True:
            request = await read_request(reader)
            served.requests.append(request)
            await asyncio.sleep(delay)
            writer.write(answer(request))
            await writer.drain()

    return handler


OK = reply(b'{"ok": true}', "Content-Type: application/json")


async def send(transport: ChatTransport, text: str = "q") -> dict:
    return await transport.post(BODY, canonical_json([{"role": "user", "content": text}]))


def test_sequential_calls_reuse_one_connection_and_concurrent_ones_stay_within_the_pool() -> None:
    async def go() -> Served:
        async with serve(keep_alive(lambda _: OK, delay=0.05)) as served:
            transport = ChatTransport(served.base_url, "sk-k", timeout=5, connections=3)
            for _ in range(4):
                assert await send(transport) == {"ok": True}
            assert served.connections == 1
            await asyncio.gather(*(send(transport) for _ in range(9)))
            await transport.close()
        return served

    served = asyncio.run(go())
    assert served.connections == 3  # the pool is the endpoint's concurrency, not one per call
    assert len(served.requests) == 13
    first = served.requests[0]
    assert first.startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")
    assert b"Authorization: Bearer sk-k\r\n" in first
    assert first.endswith(
        b'{"model": "fake-model", "temperature": 0.0, "messages": [{"content":"q","role":"user"}]}'
    )


def test_a_request_sends_exactly_its_own_headers() -> None:
    """Ours name Accept, Accept-Encoding and User-Agent, so aiohttp adds none of its own
    (``ChatTransport`` gives it no skip list, which would cost a copy of every request's
    headers): the header block is these and nothing else."""

    async def go() -> Served:
        async with serve(keep_alive(lambda _: OK)) as served:
            transport = ChatTransport(served.base_url, "sk-k", timeout=5)
            await send(transport)
            await transport.close()
        return served

    head = asyncio.run(go()).requests[0].split(b"\r\n\r\n", 1)[0].decode()
    _, *lines = head.split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    assert len(headers) == len(lines)  # no header twice
    body = (
        '{"model": "fake-model", "temperature": 0.0, "messages": [{"content":"q","role":"user"}]}'
    )
    assert headers == {
        "Host": headers["Host"],
        "Authorization": "Bearer sk-k",
        "Content-Type": "application/json",
        "Accept": "application/json",
        "Accept-Encoding": "gzip, deflate",
        "User-Agent": f"polistemics/{__version__}",
        "Content-Length": str(len(body)),
    }
    assert headers["Host"].startswith("127.0.0.1:")


@pytest.mark.parametrize(
    "encoded",
    [
        reply(gzip.compress(b'{"ok": true}'), "Content-Encoding: gzip"),
        reply(zlib.compress(b'{"ok": true}'), "Content-Encoding: deflate"),
        b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"ok"\r\n7\r\n: true}\r\n0\r\n\r\n',
    ],
    ids=["gzip", "deflate", "chunked"],
)
def test_compressed_and_chunked_bodies_are_decoded(encoded: bytes) -> None:
    async def go() -> tuple[dict, Served]:
        async with serve(keep_alive(lambda _: encoded)) as served:
            transport = ChatTransport(served.base_url, "sk-k", timeout=5)
            answer = await send(transport)
            await transport.close()
        return answer, served

    answer, served = asyncio.run(go())
    assert answer == {"ok": True}
    assert b"Accept-Encoding: gzip, deflate\r\n" in served.requests[0]


def test_a_reply_arriving_in_pieces_is_read_whole_and_its_connection_reused() -> None:
    """The body comes in three writes with pauses between (several reads, each of part of it):
    the transport reads up to the end of the body, not the end of the first piece."""
    text = "x" * 200_000  # several of the transport's 64 KB reads
    body = canonical_json({"text": text}).encode()
    head = reply(body)[: -len(body)]
    cuts = (0, 70_000, 140_000, len(body))

    async def handler(served: Served, reader, writer) -> None:
        while True:
            served.requests.append(await read_request(reader))
            writer.write(head)
            for start, end in zip(cuts, cuts[1:], strict=False):
                writer.write(body[start:end])
                await writer.drain()
                await asyncio.sleep(0.05)

    async def go() -> tuple[list[dict], Served]:
        async with serve(handler) as served:
            transport = ChatTransport(served.base_url, "sk-k", timeout=5)
            answers = [await send(transport), await send(transport)]
            await transport.close()
        return answers, served

    answers, served = asyncio.run(go())
    assert answers == [{"text": text}, {"text": text}]
    assert served.connections == 1


@pytest.mark.parametrize(
    ("raw", "error", "message"),
    [
        (reply(b"[1, 2]"), MalformedBody, "not a JSON object"),
        (reply(b"<html>ok</html>"), MalformedBody, "not JSON"),
        (reply(b"\xff\xfe{"), MalformedBody, "not JSON"),
        (b"SSH-2.0-OpenSSH_9.2\r\n\r\n", ConnectionFailed, "bad HTTP response: Bad status line"),
        (reply(b'{"long": "body"}')[:-5], ConnectionFailed, "incomplete response body"),
        (
            reply(b"", "Location: https://api.example.org/v1/chat/completions", status="301 X"),
            HttpStatusError,
            "redirected to https://api.example.org/v1/chat/completions: use that base_url",
        ),
        (
            reply(b"Bad Gateway", "Retry-After: 3", status="502 Bad Gateway"),
            HttpStatusError,
            "HTTP 502: Bad Gateway",
        ),
    ],
    ids=["array", "html", "not-utf8", "not-http", "cut-short", "redirect", "status"],
)
def test_unusable_responses_raise_their_own_error(raw: bytes, error: type, message: str) -> None:
    async def hang_up_after(served: Served, reader, writer) -> None:
        served.requests.append(await read_request(reader))
        writer.write(raw)
        await writer.drain()

    async def go() -> Served:
        async with serve(hang_up_after) as served:
            transport = ChatTransport(served.base_url, "sk-k", timeout=5)
            with pytest.raises(error, match=re.escape(message)) as raised:
                await send(transport)
            await transport.close()
        if error is HttpStatusError and raised.value.status == 502:
            assert raised.value.headers["retry-after"] == "3"
        return served

    assert asyncio.run(go()).connections == 1  # not followed, not tried again


def test_a_slow_answer_times_out_and_its_connection_is_not_reused() -> None:
    async def slow_first(served: Served, reader, writer) -> None:
        while True:
            served.requests.append(await read_request(reader))
            await asyncio.sleep(1.0 if len(served.requests) == 1 else 0)
            writer.write(OK)
            await writer.drain()

    async def go() -> Served:
        async with serve(slow_first) as served:
            transport = ChatTransport(served.base_url, "sk-k", timeout=0.3)
            with pytest.raises(RequestTimeout, match="timed out after 0.3s"):
                await send(transport)
            assert await send(transport) == {"ok": True}
            await transport.close()
        return served

    assert asyncio.run(go()).connections == 2


def test_a_refused_connection_names_the_address() -> None:
    async def go() -> None:
        async with serve(keep_alive(lambda _: OK)) as served:
            port = served.port
        transport = ChatTransport(f"http://127.0.0.1:{port}/v1", "sk-k", timeout=5)
        with pytest.raises(ConnectionFailed, match=f"cannot connect to 127.0.0.1:{port}"):
            await send(transport)
        await transport.close()

    asyncio.run(go())


def test_a_transport_works_again_in_a_new_event_loop() -> None:
    async def both() -> Served:
        async with serve(keep_alive(lambda _: OK)) as served:
            transport = ChatTransport(served.base_url, "sk-k", timeout=5)
            # Each asyncio.run is a new loop: the first loop's session must not be reused.
            for _ in range(2):
                assert await asyncio.to_thread(asyncio.run, send(transport)) == {"ok": True}
            assert await send(transport) == {"ok": True}
            await transport.close()
        return served

    assert asyncio.run(both()).connections == 3


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


def test_https_is_accepted_when_the_ca_is_trusted_and_refused_when_not(authority) -> None:
    async def go() -> Served:
        handler = keep_alive(lambda _: reply(b'{"secure": true}'))
        async with serve(handler, tls_server_context(authority)) as served:
            url = f"https://localhost:{served.port}/v1"
            trusted = ChatTransport(
                url, "sk-k", timeout=5, ssl_context=tls_client_context(authority)
            )
            assert await send(trusted) == {"secure": True}
            await trusted.close()
            untrusted = ChatTransport(url, "sk-k", timeout=5)  # certifi does not know the test CA
            with pytest.raises(ConnectionFailed, match="CERTIFICATE_VERIFY_FAILED"):
                await send(untrusted)
            await untrusted.close()
        return served

    served = asyncio.run(go())
    assert len(served.requests) == 1  # the untrusted connection sent nothing


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
        port = int(target.rsplit(b":", 1)[1])
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", port)
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


def test_http_endpoints_go_through_the_proxy_in_absolute_form_with_credentials(
    monkeypatch,
) -> None:
    async def go() -> tuple[Served, Served]:
        async with (
            serve(keep_alive(lambda _: reply(b'{"via": "proxy"}'))) as origin,
            serve(forwarding_proxy) as proxy,
        ):
            monkeypatch.setenv("HTTP_PROXY", f"http://user:p%40ss@127.0.0.1:{proxy.port}")
            transport = ChatTransport(origin.base_url, "sk-k", timeout=5)
            assert await send(transport) == {"via": "proxy"}
            await transport.close()
        return origin, proxy

    origin, proxy = asyncio.run(go())
    seen = proxy.requests[0]
    assert seen.startswith(f"POST http://127.0.0.1:{origin.port}/v1/chat/completions ".encode())
    assert b"Proxy-Authorization: Basic dXNlcjpwQHNz\r\n" in seen  # user:p@ss


def test_https_endpoints_go_through_a_connect_tunnel(monkeypatch, authority) -> None:
    async def go() -> tuple[Served, Served]:
        handler = keep_alive(lambda _: reply(b'{"tunnel": true}'))
        context = tls_client_context(authority)
        async with (
            serve(handler, tls_server_context(authority)) as origin,
            serve(forwarding_proxy) as proxy,
        ):
            monkeypatch.setenv("HTTPS_PROXY", f"http://user:s3cret@127.0.0.1:{proxy.port}")
            url = f"https://localhost:{origin.port}/v1"
            transport = ChatTransport(url, "sk-k", timeout=5, ssl_context=context)
            assert await send(transport) == {"tunnel": True}
            await transport.close()
            denied = ChatTransport(
                f"https://deny:{origin.port}/v1", "sk-k", timeout=5, ssl_context=context
            )
            with pytest.raises(ConnectionFailed) as refused:
                await send(denied)
            await denied.close()
        message = str(refused.value)
        assert "refused to tunnel" in message and "HTTP 407" in message
        assert f"http://user:***@127.0.0.1:{proxy.port}" in message and "s3cret" not in message
        return origin, proxy

    origin, proxy = asyncio.run(go())
    connect = proxy.requests[0]
    assert connect.startswith(f"CONNECT localhost:{origin.port} HTTP/1.1".encode())
    assert b"Proxy-Authorization: Basic dXNlcjpzM2NyZXQ=\r\n" in connect  # user:s3cret
    assert b"Authorization: Bearer" not in connect  # the key goes only inside the tunnel
    assert b"Authorization: Bearer sk-k" in origin.requests[0]


def test_a_compressed_bomb_is_cut_off_at_the_byte_limit_counted_decompressed() -> None:
    bomb = gzip.compress(b" " * (MAX_REPLY_BYTES + 2**20), compresslevel=9)
    assert len(bomb) < MAX_REPLY_BYTES // 100
    raw = reply(bomb, "Content-Encoding: gzip", "Content-Type: application/json")

    async def go() -> None:
        async with serve(keep_alive(lambda _: raw)) as served:
            transport = ChatTransport(served.base_url, "sk-k", timeout=20)
            with pytest.raises(ReplyTooLarge, match=f"larger than {MAX_REPLY_BYTES:,} bytes"):
                await send(transport)
            await transport.close()

    asyncio.run(go())


def test_an_endless_reply_is_cut_off_before_the_timeout() -> None:
    async def endless(served: Served, reader, writer) -> None:
        served.requests.append(await read_request(reader))
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        while True:
            writer.write(b"10000\r\n" + b"x" * 2**16 + b"\r\n")
            await writer.drain()

    async def go() -> float:
        async with serve(endless) as served:
            transport = ChatTransport(served.base_url, "sk-k", timeout=30, max_reply_bytes=2**20)
            started = asyncio.get_running_loop().time()
            with pytest.raises(ReplyTooLarge, match="larger than 1,048,576 bytes"):
                await send(transport)
            await transport.close()
            return asyncio.get_running_loop().time() - started

    assert asyncio.run(go()) < 10

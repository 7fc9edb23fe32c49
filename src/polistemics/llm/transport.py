"""HTTP transport for OpenAI-compatible chat completions endpoints, on aiohttp's client.

aiohttp (a dependency already, for the test server) does the HTTP work: keep-alive connection
pooling, TLS, gzip/deflate bodies, timeouts and HTTP proxies (absolute-form requests for
``http://`` endpoints, a CONNECT tunnel for ``https://`` ones, Basic proxy credentials from the
proxy URL). This module only adds what the client layer needs on top:

- one session per endpoint, its pool sized to the endpoint's concurrency, made lazily inside the
  running event loop (a session belongs to its loop, so a later ``asyncio.run`` gets a new one);
- JSON in and out without request or response models: at paper scale the harness makes ~100,000
  calls, and a full SDK's per-call work cost more CPU than everything else in a run together;
- typed failures the client layer maps onto its retry rules; redirects are not followed;
- the proxy named by HTTP(S)_PROXY / NO_PROXY, checked before any call (``env_proxy``).

The API key lives only in the session's Authorization header. Error messages are not cut short
here: the client layer redacts keys first, then cuts.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import urllib.request
from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

import aiohttp

from polistemics import __version__
from polistemics.llm.registry import RegistryError

__all__ = [
    "ChatTransport",
    "ConnectionFailed",
    "HttpStatusError",
    "MalformedBody",
    "ReplyTooLarge",
    "RequestTimeout",
    "TransportError",
    "UnsupportedProxy",
    "env_proxy",
    "masked_url",
    "request_json",
]

KEEPALIVE_SECONDS = 15.0  # an idle connection is closed: servers drop idle ones after 5-75 s
# A reply's body, counted after decompression: answers are a few KB, long reasoning a few
# hundred; a compressed bomb or an endless stream is cut off here instead of filling memory.
MAX_REPLY_BYTES = 16 * 2**20
_READ_CHUNK = 2**16


class TransportError(Exception):
    """A request that produced no usable response."""


class ConnectionFailed(TransportError):
    """The connection could not be made, or broke before the response was complete."""


class RequestTimeout(TransportError):
    """No complete response within the timeout."""


class HttpStatusError(TransportError):
    """The endpoint answered with a non-2xx status."""

    def __init__(self, status: int, message: str, headers: Mapping[str, str]):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message
        self.headers = headers


class MalformedBody(TransportError):
    """A 2xx response whose body is not a JSON object."""


class ReplyTooLarge(TransportError):
    """A response whose body, decompressed, is larger than the transport's byte limit."""


class UnsupportedProxy(RegistryError):
    """HTTP(S)_PROXY names a proxy the transport cannot use."""


def _ssl_context() -> ssl.SSLContext:
    # certifi's bundle where available (as the official SDKs use), the system store otherwise.
    try:
        import certifi
    except ImportError:
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


class ChatTransport:
    """Posts chat completion requests to one endpoint over a pool of keep-alive connections."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float,
        connections: int = 16,
        ssl_context: ssl.SSLContext | None = None,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ):
        self.url = base_url.rstrip("/") + "/chat/completions"
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base_url must be an http:// or https:// URL, not {base_url!r}")
        self._ssl: ssl.SSLContext | bool = False
        if parts.scheme == "https":
            self._ssl = ssl_context or _ssl_context()
        self._timeout = timeout
        self._max_reply_bytes = max_reply_bytes
        self._connections = max(1, connections)
        self._proxy = env_proxy(self.url)
        self._headers = {
            "Authorization": f"Bearer {api_key}",
            "Content-Type": "application/json",
            "Accept": "application/json",
            "Accept-Encoding": "gzip, deflate",
            "User-Agent": f"polistemics/{__version__}",
        }
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def post(self, body: dict, messages_json: str, *, head: str | None = None) -> dict:
        """Post ``body`` plus its messages; the response's JSON object, or a ``TransportError``.

        The messages come already serialised (the client layer needs their JSON for the cache key
        anyway, and a long prompt is the costly part of encoding a request); ``head``, when
        given, is ``body``'s JSON (``request_head``), made once for many calls.
        """
        data = request_json(body, messages_json, head).encode()
        session = self._session
        # The usual case (this loop's session, open) without awaiting a coroutine for it.
        if session is None or self._loop is not asyncio.get_running_loop() or session.closed:
            session = await self._session_in_this_loop()
        try:
            async with session.post(
                self.url, data=data, proxy=self._proxy, allow_redirects=False
            ) as response:
                raw = await _read_at_most(response, self._max_reply_bytes)
                status, headers = response.status, response.headers
        except TimeoutError as exc:  # aiohttp's timeouts (connecting included) subclass it
            raise RequestTimeout(f"timed out after {self._timeout:g}s") from exc
        except aiohttp.ClientHttpProxyError as exc:
            raise ConnectionFailed(
                f"the proxy {masked_url(self._proxy or '')} refused to tunnel to "
                f"{urlsplit(self.url).netloc}: HTTP {exc.status}"
            ) from exc
        except aiohttp.ClientConnectorError as exc:  # refused, unreachable, DNS, TLS failures
            via = f" via proxy {masked_url(self._proxy)}" if self._proxy else ""
            raise ConnectionFailed(
                f"cannot connect to {urlsplit(self.url).netloc}{via}: {exc}"
            ) from exc
        except aiohttp.ServerDisconnectedError as exc:
            raise ConnectionFailed("the server closed the connection before responding") from exc
        except aiohttp.ClientPayloadError as exc:  # cut short, or a body that does not decode
            raise ConnectionFailed(f"bad or incomplete response body: {exc}") from exc
        except aiohttp.ClientResponseError as exc:  # not HTTP
            raise ConnectionFailed(f"bad HTTP response: {exc.message}") from exc
        except aiohttp.ClientError as exc:
            raise ConnectionFailed(f"{type(exc).__name__}: {exc}") from exc
        if status >= 300:
            message = _error_message(raw)
            if 300 <= status < 400 and "Location" in headers:
                message = f"redirected to {headers['Location']}: use that base_url"
            raise HttpStatusError(status, message, headers)
        try:
            parsed = json.loads(raw)
        except (UnicodeDecodeError, ValueError) as exc:
            raise MalformedBody(f"not JSON ({exc})") from exc
        except RecursionError as exc:  # a body nested deeper than Python's stack
            raise MalformedBody("not JSON (nested too deeply)") from exc
        if not isinstance(parsed, dict):
            raise MalformedBody("not a JSON object")
        return parsed

    async def close(self) -> None:
        session, self._session, self._loop = self._session, None, None
        if session is not None and not session.closed:
            await session.close()

    async def _session_in_this_loop(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is not None and self._loop is loop and not self._session.closed:
            return self._session
        await self._forget_session()
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(
                limit=self._connections,
                limit_per_host=0,
                ssl=self._ssl,
                keepalive_timeout=KEEPALIVE_SECONDS,
            ),
            headers=self._headers,
            timeout=aiohttp.ClientTimeout(total=self._timeout),
            cookie_jar=aiohttp.DummyCookieJar(),
            # No skip_auto_headers: ours name Accept, Accept-Encoding (only what is decoded) and
            # User-Agent, so aiohttp adds none of its own; a skip list would make it copy every
            # request's headers to apply it (~1,000 requests a second at paper scale).
        )
        self._loop = loop
        return self._session

    async def _forget_session(self) -> None:
        """Let go of a session made in another event loop than the running one."""
        session, old_loop = self._session, self._loop
        self._session = self._loop = None
        if session is None or session.closed or old_loop is None:
            return
        connector = session.connector
        session.detach()
        if connector is None:
            return
        if old_loop.is_running():  # in another thread: close its connections there
            asyncio.run_coroutine_threadsafe(_close(connector), old_loop)
        elif old_loop.is_closed():
            # Its connections cannot be closed any more (the collector frees their sockets);
            # this only marks the connector closed, so aiohttp does not warn about it.
            await connector.close()


def request_head(body: dict) -> str:
    """A request body's JSON without its messages (``request_json`` splices them in)."""
    return json.dumps(body, ensure_ascii=False)


def request_json(body: dict, messages_json: str, head: str | None = None) -> str:
    """The JSON text of a request: ``body`` with the messages' JSON spliced in last (what is
    posted, and what an offline batch file carries as the line's body). ``head``: ``body``'s
    JSON (``request_head(body)``) when the caller has it already."""
    head = request_head(body) if head is None else head
    return f'{head[:-1]}{", " if body else ""}"messages": {messages_json}}}'


async def _read_at_most(response: aiohttp.ClientResponse, limit: int) -> bytes:
    """The decompressed body, or ``ReplyTooLarge`` as soon as it passes ``limit`` bytes."""
    content = response.content
    body = bytearray()
    while chunk := await content.read(_READ_CHUNK):
        body += chunk
        if len(body) > limit:
            response.close()  # the rest is not read: the connection is not reused
            raise ReplyTooLarge(f"reply larger than {limit:,} bytes (decompressed); not read")
        if content.at_eof():  # a reply of one chunk (the usual) costs one read, not two
            break
    return bytes(body)


async def _close(connector: aiohttp.BaseConnector) -> None:
    await connector.close()


def env_proxy(url: str) -> str | None:
    """The proxy HTTP(S)_PROXY / NO_PROXY name for this endpoint, looked up once.

    Only plain-HTTP proxies are supported (HTTPS endpoints are tunnelled through them with
    CONNECT); any other raises ``UnsupportedProxy`` naming the variable, credentials masked.
    """
    parts = urlsplit(url)
    if urllib.request.proxy_bypass_environment(parts.hostname or ""):
        return None
    proxy = urllib.request.getproxies_environment().get(parts.scheme)
    if proxy and urlsplit(proxy).scheme != "http":
        raise UnsupportedProxy(
            f"{parts.scheme.upper()}_PROXY is {masked_url(proxy)!r}: only http:// proxies are "
            "supported (HTTPS endpoints are tunnelled through them)"
        )
    return proxy


def masked_url(url: str) -> str:
    """``url`` with any password shown as ``***`` (``http://user:***@host:port``)."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # an unparseable port: mask everything before the last '@'
        return "***@" + url.rsplit("@", 1)[1] if "@" in url else url
    if password is None:
        return url
    userinfo, host = parts.netloc.rsplit("@", 1)
    user = userinfo.split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def _error_message(raw: bytes) -> str:
    """The provider's own error message where the body has one, else the body.

    Not cut short here: the client layer redacts keys first, then cuts (a cut first could leave a
    piece of an echoed key that no longer matches the whole key).
    """
    text = raw.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: an error body nested too deeply
        return text.strip() or "(empty body)"
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    if isinstance(error, str):
        return error
    return text

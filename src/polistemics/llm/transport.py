"""HTTP transport for OpenAI-compatible chat completions endpoints.

One keep-alive connection pool per endpoint, JSON in and out, and typed failures the client
layer maps onto its retry rules. It is deliberately thin (aiohttp with its C parser, no request
or response models): at paper scale the harness makes ~100,000 calls, and a full SDK's per-call
work (request building, header models, pool bookkeeping) cost more CPU than everything else in a
run together.
"""

from __future__ import annotations

import json
import ssl
import urllib.request
from collections.abc import Mapping

import aiohttp
from yarl import URL

from polistemics import __version__


class TransportError(Exception):
    """A request that produced no usable response body."""


class HttpStatusError(TransportError):
    """The endpoint answered with a non-2xx status."""

    def __init__(self, status: int, message: str, headers: Mapping[str, str]):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message
        self.headers = headers


class RequestTimeout(TransportError):
    """No complete response within the endpoint's timeout."""


class ConnectionFailed(TransportError):
    """The connection could not be made, or broke before the response was complete."""


class MalformedBody(TransportError):
    """A 2xx response whose body is not a JSON object."""


def _ssl_context() -> ssl.SSLContext:
    # certifi's bundle where available (as the official SDKs use), the system store otherwise.
    try:
        import certifi
    except ImportError:
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


class ChatTransport:
    """Posts chat completion requests to one endpoint over a pooled session."""

    def __init__(self, base_url: str, api_key: str, *, timeout: float):
        self.url = URL(base_url.rstrip("/") + "/chat/completions")
        self._headers = {
            "Authorization": f"Bearer {api_key}",
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": f"polistemics/{__version__}",
        }
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._proxy = _env_proxy(self.url)
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(
                limit=0,  # the client layer's limiter bounds concurrency, per endpoint
                ssl=_ssl_context() if self.url.scheme == "https" else False,
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                headers=self._headers,
                cookie_jar=aiohttp.DummyCookieJar(),  # an API client keeps no cookies
            )
        return self._session

    async def post(self, body: dict, messages_json: str) -> dict:
        """Post ``body`` plus its messages; the response's JSON object, or a ``TransportError``.

        The messages come already serialised (the client layer needs their JSON for the cache key
        anyway, and a long prompt is the costly part of encoding a request).
        """
        head = json.dumps(body, ensure_ascii=False)
        data = f'{head[:-1]}{", " if body else ""}"messages": {messages_json}}}'.encode()
        try:
            async with self._open().post(
                self.url, data=data, timeout=self._timeout, proxy=self._proxy
            ) as resp:
                raw = await resp.read()
                status = resp.status
                headers = resp.headers
        except TimeoutError as exc:
            raise RequestTimeout(f"timed out after {self._timeout.total:g}s") from exc
        except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError) as exc:
            raise ConnectionFailed(f"{type(exc).__name__}: {exc}") from exc
        except aiohttp.ClientResponseError as exc:  # unparseable status line or headers
            raise ConnectionFailed(f"bad HTTP response: {exc.message}") from exc
        if status >= 300:
            raise HttpStatusError(status, _error_message(raw), headers)
        try:
            parsed = json.loads(raw)
        except (UnicodeDecodeError, ValueError) as exc:
            raise MalformedBody(f"not JSON ({exc})") from exc
        if not isinstance(parsed, dict):
            raise MalformedBody("not a JSON object")
        return parsed

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def _env_proxy(url: URL) -> str | None:
    """The proxy HTTP(S)_PROXY / NO_PROXY name for this endpoint, looked up once.

    (aiohttp's ``trust_env`` would look it up, and read ~/.netrc, in a thread on every request.)
    """
    host = url.host or ""
    if urllib.request.proxy_bypass_environment(host):
        return None
    return urllib.request.getproxies_environment().get(url.scheme)


def _error_message(raw: bytes, limit: int = 500) -> str:
    """The provider's own error message where the body has one, else the start of the body."""
    text = raw.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
    except ValueError:
        return text[:limit].strip() or "(empty body)"
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"][:limit]
    if isinstance(error, str):
        return error[:limit]
    return text[:limit]

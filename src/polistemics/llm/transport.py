"""HTTP transport for OpenAI-compatible chat completions endpoints.

One keep-alive connection pool per endpoint (``http1``), JSON in and out, and typed failures the
client layer maps onto its retry rules. It is deliberately thin (no request or response models):
at paper scale the harness makes ~100,000 calls, and a full SDK's per-call work cost more CPU than
everything else in a run together.
"""

from __future__ import annotations

import json
import ssl
import urllib.request
from collections.abc import Mapping
from urllib.parse import urlsplit

from polistemics import __version__
from polistemics.llm.http1 import (
    ConnectionFailed,
    ConnectionPool,
    RequestTimeout,
    TransportError,
)
from polistemics.llm.registry import RegistryError

__all__ = [
    "ChatTransport",
    "ConnectionFailed",
    "HttpStatusError",
    "MalformedBody",
    "RequestTimeout",
    "TransportError",
    "UnsupportedProxy",
    "env_proxy",
]


class HttpStatusError(TransportError):
    """The endpoint answered with a non-2xx status."""

    def __init__(self, status: int, message: str, headers: Mapping[str, str]):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message
        self.headers = headers


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
    """Posts chat completion requests to one endpoint over a pool of keep-alive connections."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float,
        ssl_context: ssl.SSLContext | None = None,
    ):
        self.url = base_url.rstrip("/") + "/chat/completions"
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base_url must be an http:// or https:// URL, not {base_url!r}")
        if parts.scheme == "https" and ssl_context is None:
            ssl_context = _ssl_context()
        self._timeout = timeout
        self._pool = ConnectionPool(self.url, ssl_context=ssl_context, proxy=env_proxy(self.url))
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        headers = {
            "Authorization": f"Bearer {api_key}",
            "Content-Type": "application/json",
            "Accept": "application/json",
            "Accept-Encoding": "gzip, deflate",
            "User-Agent": f"polistemics/{__version__}",
        }
        # The request line and headers are the same for every call: encoded once.
        self._head = f"POST {self._pool.request_target(path)} HTTP/1.1\r\n".encode(
            "latin-1"
        ) + self._pool.header_lines(headers)

    async def post(self, body: dict, messages_json: str) -> dict:
        """Post ``body`` plus its messages; the response's JSON object, or a ``TransportError``.

        The messages come already serialised (the client layer needs their JSON for the cache key
        anyway, and a long prompt is the costly part of encoding a request).
        """
        head = json.dumps(body, ensure_ascii=False)
        data = f'{head[:-1]}{", " if body else ""}"messages": {messages_json}}}'.encode()
        response = await self._pool.request(self._head, data, timeout=self._timeout)
        if response.status >= 300:
            message = _error_message(response.body)
            if 300 <= response.status < 400 and "location" in response.headers:
                message = f"redirected to {response.headers['location']}: use that base_url"
            raise HttpStatusError(response.status, message, response.headers)
        try:
            parsed = json.loads(response.body)
        except (UnicodeDecodeError, ValueError) as exc:
            raise MalformedBody(f"not JSON ({exc})") from exc
        if not isinstance(parsed, dict):
            raise MalformedBody("not a JSON object")
        return parsed

    async def close(self) -> None:
        await self._pool.close()


class UnsupportedProxy(RegistryError):
    """HTTP(S)_PROXY names a proxy the transport cannot use."""


def env_proxy(url: str) -> str | None:
    """The proxy HTTP(S)_PROXY / NO_PROXY name for this endpoint, looked up once.

    Only plain-HTTP proxies are supported (HTTPS endpoints are tunnelled through them with
    CONNECT); any other raises ``UnsupportedProxy`` naming the variable.
    """
    parts = urlsplit(url)
    if urllib.request.proxy_bypass_environment(parts.hostname or ""):
        return None
    proxy = urllib.request.getproxies_environment().get(parts.scheme)
    if proxy and urlsplit(proxy).scheme != "http":
        raise UnsupportedProxy(
            f"{parts.scheme.upper()}_PROXY is {proxy!r}: only http:// proxies are supported "
            "(HTTPS endpoints are tunnelled through them)"
        )
    return proxy


def _error_message(raw: bytes) -> str:
    """The provider's own error message where the body has one, else the body.

    Not cut short here: the client layer redacts keys first, then cuts (a cut first could leave a
    piece of an echoed key that no longer matches the whole key).
    """
    text = raw.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
    except ValueError:
        return text.strip() or "(empty body)"
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    if isinstance(error, str):
        return error
    return text

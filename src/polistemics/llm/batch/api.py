"""The HTTP calls of OpenAI's batch API: upload a file, create, retrieve and cancel a batch,
download a file's content. On aiohttp, like the online transport, whose typed failures it
raises (``HttpStatusError``, ``ConnectionFailed``, ``RequestTimeout``, ``MalformedBody``,
``ReplyTooLarge``) so that the collector retries them by the same rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote, urlsplit

import aiohttp

from polistemics import __version__
from polistemics.llm.transport import (
    ConnectionFailed,
    HttpStatusError,
    MalformedBody,
    ReplyTooLarge,
    RequestTimeout,
    _error_message,
    _ssl_context,
    env_proxy,
)

MAX_FILE_BYTES = 2 * 2**30  # an output file this large is not one of ours
_CHUNK = 2**16
_ERROR_BYTES = 2**16  # of an error reply's body, read for its message


class BatchAPI:
    """One provider's batch API at ``base_url`` (e.g. ``https://api.openai.com/v1``)."""

    def __init__(self, base_url: str, api_key: str, *, timeout: float = 600.0):
        self.base_url = base_url.rstrip("/")
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base_url must be an http:// or https:// URL, not {base_url!r}")
        self._ssl = _ssl_context() if parts.scheme == "https" else False
        self._proxy = env_proxy(self.base_url)
        self._timeout = timeout
        self._headers = {
            "Authorization": f"Bearer {api_key}",
            "User-Agent": f"polistemics/{__version__}",
        }
        self._session: aiohttp.ClientSession | None = None

    async def upload(self, data: bytes | Path, filename: str) -> str:
        """Upload a batch input file (its bytes, or streamed from its path); its file id."""
        with contextlib.ExitStack() as stack:
            if isinstance(data, Path):
                data = stack.enter_context(data.open("rb"))
            form = aiohttp.FormData()
            form.add_field("purpose", "batch")
            form.add_field("file", data, filename=filename, content_type="application/jsonl")
            reply = await self._json("POST", "/files", data=form)
        return _text(reply, "id")

    async def create(self, input_file_id: str, endpoint: str, window: str, metadata: dict) -> dict:
        body = {
            "input_file_id": input_file_id,
            "endpoint": endpoint,
            "completion_window": window,
            "metadata": metadata,
        }
        reply = await self._json("POST", "/batches", json_body=body)
        _text(reply, "id")
        return reply

    async def retrieve(self, batch_id: str) -> dict:
        return await self._json("GET", f"/batches/{quote(batch_id, safe='')}")

    async def cancel(self, batch_id: str) -> dict:
        return await self._json("POST", f"/batches/{quote(batch_id, safe='')}/cancel")

    async def content(self, file_id: str) -> bytes:
        return await self._raw("GET", f"/files/{quote(file_id, safe='')}/content")

    async def download(self, file_id: str, dest: Path) -> Path:
        """A file's content streamed into ``dest`` (written as ``dest.part``, then renamed)."""
        return await self._to_file("GET", f"/files/{quote(file_id, safe='')}/content", dest)

    async def close(self) -> None:
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()

    # -- HTTP ---------------------------------------------------------------------------------

    async def _json(
        self,
        method: str,
        path: str,
        *,
        data: object = None,
        json_body: dict | None = None,
        headers: dict | None = None,
    ) -> dict:
        raw = await self._raw(method, path, data=data, json_body=json_body, headers=headers)
        try:
            parsed = json.loads(raw)
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise MalformedBody(f"{method} {path}: not JSON") from exc
        if not isinstance(parsed, dict):
            raise MalformedBody(f"{method} {path}: not a JSON object")
        return parsed

    async def _raw(
        self,
        method: str,
        path: str,
        *,
        data: object = None,
        json_body: dict | None = None,
        headers: dict | None = None,
    ) -> bytes:
        body = bytearray()
        await self._request(
            method, path, body.extend, data=data, json_body=json_body, headers=headers
        )
        return bytes(body)

    async def _to_file(self, method: str, path: str, dest: Path) -> Path:
        """The reply's body written to ``dest`` as it arrives (an error reply's body is read into
        memory: it is short, and its message is wanted)."""
        part = dest.with_name(dest.name + ".part")
        try:
            with part.open("wb") as handle:
                await self._request(method, path, handle.write)
            os.replace(part, dest)
        finally:
            part.unlink(missing_ok=True)
        return dest

    async def _request(
        self,
        method: str,
        path: str,
        sink: Callable[[bytes], object],
        *,
        data: object = None,
        json_body: dict | None = None,
        headers: dict | None = None,
    ) -> None:
        """Send one request and hand a successful reply's body to ``sink`` a chunk at a time."""
        session = self._session_now()
        try:
            async with session.request(
                method,
                self.base_url + path,
                data=data,
                json=json_body,
                headers=headers,
                proxy=self._proxy,
                allow_redirects=False,
            ) as response:
                failed = response.status >= 300
                error = bytearray()
                size = 0
                while chunk := await response.content.read(_CHUNK):
                    size += len(chunk)
                    if size > MAX_FILE_BYTES:
                        response.close()
                        raise ReplyTooLarge(f"{path}: larger than {MAX_FILE_BYTES:,} bytes")
                    if failed:
                        error += chunk[: _ERROR_BYTES - len(error)]
                    else:
                        sink(chunk)
                status, headers = response.status, response.headers
        except TimeoutError as exc:
            raise RequestTimeout(f"{method} {path}: timed out after {self._timeout:g}s") from exc
        except aiohttp.ClientError as exc:
            raise ConnectionFailed(f"{method} {path}: {type(exc).__name__}: {exc}") from exc
        if status >= 300:
            raise HttpStatusError(
                status, f"{method} {path}: {_error_message(bytes(error))}", headers
            )

    def _session_now(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._session._loop is not loop:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=4, ssl=self._ssl),
                headers=self._headers,
                timeout=aiohttp.ClientTimeout(total=self._timeout),
                cookie_jar=aiohttp.DummyCookieJar(),
            )
        return self._session


def _text(reply: dict, name: str) -> str:
    value = reply.get(name)
    if not isinstance(value, str) or not value or len(value) > 200:
        raise MalformedBody(f"the reply has no usable {name!r}")
    return value


class AnthropicBatchAPI(BatchAPI):
    """Anthropic's Message Batches at ``base_url`` (e.g. ``https://api.anthropic.com/v1``)."""

    VERSION = "2023-06-01"

    def __init__(self, base_url: str, api_key: str, *, timeout: float = 600.0):
        super().__init__(base_url, api_key, timeout=timeout)
        self._headers = {
            "x-api-key": api_key,
            "anthropic-version": self.VERSION,
            "User-Agent": f"polistemics/{__version__}",
        }

    async def create_messages(self, data: bytes | Path) -> dict:
        """Create a Message Batch from its JSON body (``anthropic.requests_body``), or from the
        file that holds it (streamed)."""
        with contextlib.ExitStack() as stack:
            if isinstance(data, Path):
                data = stack.enter_context(data.open("rb"))
            reply = await self._json(
                "POST",
                "/messages/batches",
                data=data,
                headers={"Content-Type": "application/json"},
            )
        _text(reply, "id")
        return reply

    async def retrieve(self, batch_id: str) -> dict:
        return await self._json("GET", f"/messages/batches/{quote(batch_id, safe='')}")

    async def cancel(self, batch_id: str) -> dict:
        return await self._json("POST", f"/messages/batches/{quote(batch_id, safe='')}/cancel")

    async def results(self, url: str) -> bytes:
        """The results file at ``results_url``; only under this API's base, so that the key is
        never sent to a host a reply names."""
        if not url.startswith(self.base_url + "/messages/batches/"):
            raise MalformedBody("results_url is not under the API's base URL")
        return await self._raw("GET", url[len(self.base_url) :])

    async def download_results(self, url: str, dest: Path) -> Path:
        """The results file at ``results_url`` streamed into ``dest`` (as ``results``)."""
        if not url.startswith(self.base_url + "/messages/batches/"):
            raise MalformedBody("results_url is not under the API's base URL")
        return await self._to_file("GET", url[len(self.base_url) :], dest)

"""A scripted provider on a local port, for tests that need what the test server cannot do
(echo a request's headers, send hostile replies). Import it as ``from local_provider import
serving`` (``tests/`` is on ``sys.path``, as for ``fakes``)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

from aiohttp import web

Chat = Callable[[web.Request], Awaitable[web.Response]]


@contextmanager
def serving(chat: Chat) -> Iterator[str]:
    """``chat`` as the chat completions route of a server on 127.0.0.1 (a free port), run on its
    own thread; yields the API base URL and stops the server on exit."""
    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    runner = web.AppRunner(app, access_log=None)
    loop = asyncio.new_event_loop()
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = runner.addresses[0][1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.run_until_complete(runner.cleanup())
        loop.close()

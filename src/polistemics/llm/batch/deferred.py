"""Who goes on from a batch call's result, and what the client keeps of a call while it waits.

A stage hands a batch endpoint's call to the client as data (``LLMClient.defer``) with a
``BatchWaiter`` and a small JSON ``context``: the waiter is one object for many calls (a judge
panel's, say), the context says which call this is (an answer's identity, a rubric, a seat). The
context waits on disk with the call (``journal``); in memory the client keeps a ``Waiting``
record per call: the place of its journal record, its endpoint and its waiter. When the call's
result is stored, ``waiter.done(result, context)`` goes on from it (it may make further calls,
deferred too); if the batch API is lost, ``waiter.failed(exc, context)``.

``FutureWaiter`` is the waiter of a call made with ``LLMClient.complete``, which awaits its result
(a coroutine per call: for the few stages that have not handed their calls over as data).
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.types import CallResult


class BatchWaiter(Protocol):
    """Goes on from the results of calls handed over as data (see the module doc)."""

    async def done(self, result: CallResult, context: Any) -> None: ...

    def failed(self, exc: BaseException, context: Any) -> None: ...


class FutureWaiter:
    """The waiter of one awaited call: its result or error goes to ``future``. The caller
    accounts for the call itself (``LLMClient.complete``)."""

    __slots__ = ("future",)
    accounts_itself = True

    def __init__(self, future: asyncio.Future[CallResult]):
        self.future = future

    async def done(self, result: CallResult, context: Any) -> None:
        if not self.future.done():
            self.future.set_result(result)

    def failed(self, exc: BaseException, context: Any) -> None:
        if not self.future.done():
            self.future.set_exception(exc)


class Waiting:
    """What the client holds of one call waiting for its batch: its journal record's place,
    its endpoint, its waiter (whose context is in the record), and the journal places of
    further waiters of the same call (the same key asked again while it waits), if any."""

    __slots__ = ("endpoint", "more", "place", "waiter")

    def __init__(self, place: int, endpoint: ModelEndpoint, waiter: BatchWaiter):
        self.place = place
        self.endpoint = endpoint
        self.waiter = waiter
        self.more: list[tuple[BatchWaiter, int]] | None = None

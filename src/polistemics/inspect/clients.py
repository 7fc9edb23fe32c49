"""One judge client per eval for the inspect_ai scorer (``scorer.judge_panel``).

inspect_ai gives a scorer no end of its own to close a client at, so the client is kept per
eval (the id inspect_ai gives one task's execution): opened by the first sample the eval
scores, shared by every other (one session, one concurrency limit per judge endpoint, one
local-server pool), and closed by an inspect_ai hook (``PanelClientHooks``) when the task ends
(``on_task_end``) or, should the task fail before that, when the run ends (``on_run_end``).
Which eval a sample belongs to comes from the ``on_sample_start`` hook, whose ``sample_id`` is
the sample's ``TaskState.uuid``. A scorer called outside an eval (no sample start heard:
``inspect score`` of a finished log, or a direct call) gets a client for that one call.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field

from inspect_ai.hooks import Hooks, RunEnd, SampleEnd, SampleStart, TaskEnd, hooks

from polistemics.llm.client import LLMClient
from polistemics.llm.session import open_client


@dataclass
class _EvalClient:
    run_id: str
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    stack: AsyncExitStack | None = None
    client: LLMClient | None = None


class PanelClients:
    """The open clients by eval id, and which eval each running sample belongs to."""

    def __init__(self) -> None:
        self._evals: dict[str, _EvalClient] = {}
        self._sample_eval: dict[str, str] = {}

    def sample_started(self, sample_uuid: str, eval_id: str, run_id: str) -> None:
        self._sample_eval[sample_uuid] = eval_id
        self._evals.setdefault(eval_id, _EvalClient(run_id))

    def sample_ended(self, sample_uuid: str) -> None:
        self._sample_eval.pop(sample_uuid, None)

    @asynccontextmanager
    async def client_for(self, sample_uuid: str) -> AsyncIterator[LLMClient]:
        """The eval's shared client (opened on first use), or, for a sample of no known eval,
        a client of its own, closed on leaving."""
        eval_id = self._sample_eval.get(sample_uuid)
        entry = self._evals.get(eval_id) if eval_id is not None else None
        if entry is None:
            async with open_client(None, quiet=True) as client:
                yield client
            return
        async with entry.lock:
            if entry.client is None:
                entry.stack = AsyncExitStack()
                entry.client = await entry.stack.enter_async_context(open_client(None, quiet=True))
        yield entry.client

    async def close_eval(self, eval_id: str) -> None:
        entry = self._evals.pop(eval_id, None)
        if entry is not None and entry.stack is not None:
            await entry.stack.aclose()

    async def close_run(self, run_id: str) -> None:
        for eval_id in [e for e, entry in self._evals.items() if entry.run_id == run_id]:
            await self.close_eval(eval_id)

    @property
    def open_evals(self) -> list[str]:
        return [e for e, entry in self._evals.items() if entry.client is not None]


PANEL_CLIENTS = PanelClients()


@hooks(
    name="polistemics_judge_clients",
    description="Opens one Polistemics judge client per eval and closes it when the task ends.",
)
class PanelClientHooks(Hooks):
    async def on_sample_start(self, data: SampleStart) -> None:
        PANEL_CLIENTS.sample_started(data.sample_id, data.eval_id, data.run_id)

    async def on_sample_end(self, data: SampleEnd) -> None:
        PANEL_CLIENTS.sample_ended(data.sample_id)

    async def on_task_end(self, data: TaskEnd) -> None:
        await PANEL_CLIENTS.close_eval(data.eval_id)

    async def on_run_end(self, data: RunEnd) -> None:
        await PANEL_CLIENTS.close_run(data.run_id)

"""The scorer's clients (``inspect.clients``): one per eval, opened on first use and closed
when the eval's task (or, failing that, its run) ends; a sample of no known eval gets its own.

No ``__init__.py`` in this folder: a package named ``inspect`` would shadow the standard library.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager

import pytest

pytest.importorskip("inspect_ai", reason="the dev extra installs inspect-ai")
import polistemics.inspect.clients as clients  # noqa: E402 (after the skip)


def counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    counts = {"opened": 0, "closed": 0}

    @asynccontextmanager
    async def fake_client(*args, **kwargs):
        counts["opened"] += 1
        try:
            yield object()
        finally:
            counts["closed"] += 1

    monkeypatch.setattr(clients, "open_client", fake_client)
    return counts


def test_samples_of_one_eval_share_a_client_closed_at_the_tasks_end(monkeypatch) -> None:
    counts = counting(monkeypatch)
    panel = clients.PanelClients()

    async def scenario() -> None:
        for sample in ("s1", "s2", "s3"):
            panel.sample_started(sample, "eval-a", "run-1")
        panel.sample_started("t1", "eval-b", "run-1")

        async def score(sample: str):
            async with panel.client_for(sample) as client:
                await asyncio.sleep(0)
                return client

        shared = await asyncio.gather(*(score(s) for s in ("s1", "s2", "s3")))
        assert shared[0] is shared[1] is shared[2]
        other = await score("t1")
        assert other is not shared[0]
        assert counts == {"opened": 2, "closed": 0}
        await panel.close_eval("eval-a")
        assert counts == {"opened": 2, "closed": 1}
        await panel.close_run("run-1")  # eval-b's task never ended: its run did
        assert counts == {"opened": 2, "closed": 2} and panel.open_evals == []

    asyncio.run(scenario())


def test_a_sample_of_no_known_eval_gets_a_client_for_the_call(monkeypatch) -> None:
    counts = counting(monkeypatch)
    panel = clients.PanelClients()

    async def scenario() -> None:
        for _ in range(2):
            async with panel.client_for("unknown"):
                assert counts["opened"] == counts["closed"] + 1
        assert counts == {"opened": 2, "closed": 2}

    asyncio.run(scenario())

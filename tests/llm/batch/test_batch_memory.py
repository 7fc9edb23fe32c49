"""What a batch holds while it runs: its requests' lines are on disk (under the run directory,
removed once read), and a waiting call holds neither its line nor its prompt's JSON."""

from __future__ import annotations

import asyncio
import tracemalloc
from pathlib import Path

from polistemics.llm.batch.ledger import Ledger
from polistemics.llm.batch.spool import BATCH_FOLDER
from polistemics.llm.client import LLMClient
from polistemics.llm.keys import _long_text
from polistemics.llm.store import RunStore
from polistemics.testing import FakeOpenAIServer, Rule

from .test_batch_client import FAST, ask, batch_endpoint

PROMPT_CHARS = 200_000


async def calls_with_an_open_batch(store: RunStore, endpoint, prompts: list[str], seen: dict):
    """Run the calls; once their batch is open, note what is traced and what is on disk."""
    client = LLMClient(store=store, retry=FAST)
    try:
        calls = asyncio.gather(
            *(client.complete(endpoint, ask(p), stage="judges") for p in prompts)
        )
        with Ledger(store.path) as ledger:
            while not ledger.batches(open_only=True):
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
        _long_text.cache_clear()  # the last few hundred texts' JSON, however many calls wait
        seen["snapshot"] = tracemalloc.take_snapshot()
        seen["files"] = sorted(p.name for p in (store.path.parent / BATCH_FOLDER).iterdir())
        return await calls
    finally:
        await client.aclose()


def test_waiting_calls_hold_neither_their_lines_nor_their_prompts_json(tmp_path: Path) -> None:
    prompts = [f"question {i} " + f"w{i} " * (PROMPT_CHARS // 6) for i in range(12)]
    prompt_bytes = sum(len(p) for p in prompts)
    seen: dict = {}
    with (
        FakeOpenAIServer([Rule("question", response="an answer")], batch_latency=1.0) as server,
        RunStore(tmp_path / "store.sqlite") as store,
    ):
        tracemalloc.start(30)
        try:
            results = asyncio.run(
                calls_with_an_open_batch(store, batch_endpoint(server), prompts, seen)
            )
        finally:
            tracemalloc.stop()
        assert all(r.ok and r.text == "an answer" for r in results)
        assert store.call_messages(results[0].key) == ask(prompts[0])  # stored as it was
    # The test server's own copies (its thread, its files) are not the client's.
    held = seen["snapshot"].filter_traces(
        [tracemalloc.Filter(False, "*/polistemics/testing/*", all_frames=True)]
    )
    client_bytes = sum(stat.size for stat in held.statistics("filename"))
    # Before: each waiting call held its prompt's JSON (about the prompt again).
    assert client_bytes < prompt_bytes / 4, (client_bytes, prompt_bytes)
    assert seen["files"] == []  # uploaded from disk, then removed
    assert list((tmp_path / BATCH_FOLDER).iterdir()) == []  # the results' files too

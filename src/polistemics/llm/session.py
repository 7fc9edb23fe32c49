"""Open the client layer for a run: store, local model servers, progress, cost cap."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from polistemics.llm.client import LLMClient, RetryPolicy
from polistemics.llm.local_server import LocalServerPool
from polistemics.llm.progress import StageProgress
from polistemics.llm.store import RunStore
from polistemics.runlog.layout import STORE_FILE


@asynccontextmanager
async def open_client(
    run_dir: Path | str | None,
    *,
    max_cost: float | None = None,
    quiet: bool = False,
    retry_errors: bool = False,
    retry: RetryPolicy | None = None,
) -> AsyncIterator[LLMClient]:
    """A ready ``LLMClient`` whose calls are cached in ``run_dir/store.sqlite``.

    ``retry_errors`` forgets recorded failures first, so they are called again.
    With ``run_dir=None`` nothing is cached (one-off calls).
    """
    store = None
    log_dir = None
    if run_dir is not None:
        run_dir = Path(run_dir)
        store = RunStore(run_dir / STORE_FILE)
        log_dir = run_dir / "logs"
        if retry_errors:
            store.forget_errors()
    notice = None if quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    pool = LocalServerPool(log_dir=log_dir, notice=notice)
    progress = StageProgress(quiet=quiet)
    client = LLMClient(
        store=store,
        max_cost=max_cost,
        retry=retry or RetryPolicy(),
        local_servers=pool,
        listeners=[progress],
    )
    try:
        with progress:
            yield client
    finally:
        await client.aclose()
        pool.close()
        if store is not None:
            store.close()

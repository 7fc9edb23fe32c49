"""What a waiting batch call holds: N calls of one batch endpoint through ``LLMClient`` (with its
run store), against the project's test server in its own process, measured with tracemalloc.

Each call's prompt is a shared system message (a rubric, about 3 kB) and its own user message
(about 1.5 kB), as a judge call's. The calls are made twice, in two ways: awaited
(``complete``, a task each, as the stages without a batch path make them) and handed over as
data (``defer``, as the judge panel hands its batch judges' calls over). For each, prints the
memory traced per request once every call waits on its open batch, the event loop's tasks at
that moment, the journal's records and bytes on disk, the peak over the whole run per request
(the batch's upload and the reading of its results included), and the lines that hold most
while the calls wait.

    python benchmarks/batch_memory.py --requests 5000
    python benchmarks/batch_memory.py --requests 20000 --deferred-only
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import tempfile
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from client_overhead import test_server  # noqa: E402

from polistemics.llm.batch.ledger import Ledger  # noqa: E402
from polistemics.llm.client import LLMClient, RetryPolicy  # noqa: E402
from polistemics.llm.registry import ModelEndpoint  # noqa: E402
from polistemics.llm.store import RunStore  # noqa: E402

SYSTEM = "rubric text " * 250


def prompt(i: int) -> list[dict]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"answer {i} " + "word " * 300},
    ]


class Results:
    """The deferred calls' waiter: it keeps only a count (the stage's sink is not measured)."""

    def __init__(self) -> None:
        self.ok = 0
        self.left = 0
        self.idle = asyncio.Event()

    async def done(self, result, context) -> None:
        self.ok += result.ok
        self.left -= 1
        if self.left == 0:
            self.idle.set()

    def failed(self, exc, context) -> None:
        raise exc


async def measure(base_url: str, store_path: Path, requests: int, deferred: bool) -> None:
    endpoint = ModelEndpoint(
        name="batch",
        model="fake",
        base_url=base_url,
        execution="batch",
        batch_flush_seconds=0.2,
        batch_poll_seconds=0.2,
        price_input_per_mtok=1.0,
        price_output_per_mtok=2.0,
    )
    prompts = [prompt(i) for i in range(requests)]  # the callers' own, not counted
    with RunStore(store_path) as store:
        client = LLMClient(store=store, retry=RetryPolicy(max_attempts=2))
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        sink = Results()
        if deferred:
            sink.left = requests
            for i, p in enumerate(prompts):
                await client.defer(endpoint, p, stage="judge", waiter=sink, context={"i": i})
        else:
            calls = [
                asyncio.ensure_future(client.complete(endpoint, p, stage="judge")) for p in prompts
            ]
        with Ledger(store_path) as ledger:
            while not ledger.batches():
                await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        waiting = tracemalloc.get_traced_memory()[0] - base
        tasks = len(asyncio.all_tasks())
        journal = client.batches.journal if client.batches else None
        records = journal.waiting if journal is not None else 0
        disk = journal.disk_bytes if journal is not None else 0
        snapshot = tracemalloc.take_snapshot()
        if deferred:
            await sink.idle.wait()
        else:
            sink.ok = sum(r.ok for r in await asyncio.gather(*calls))
        peak = tracemalloc.get_traced_memory()[1] - base
        await client.aclose()
    assert sink.ok == requests
    way = "handed over as data (defer)" if deferred else "awaited (complete)"
    print(f"calls {way}")
    print(f"requests              {requests}")
    print(f"held while waiting    {waiting / requests:,.0f} B per request")
    print(f"event loop tasks      {tasks} while they wait")
    print(f"journal on disk       {records} records, {disk / requests:,.0f} B per request")
    print(f"peak over the run     {peak / requests:,.0f} B per request")
    print("most held while waiting:")
    for stat in snapshot.statistics("lineno")[:8]:
        print(f"  {stat.size / 2**20:7.2f} MB {stat.count:8d}  {stat.traceback[0]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument(
        "--deferred-only", action="store_true", help="only the calls handed over as data"
    )
    args = parser.parse_args()
    with (
        test_server(0.0, ["--batch-latency-ms", "2000"]) as server,
        tempfile.TemporaryDirectory() as tmp,
    ):
        tracemalloc.start(1)
        for number, deferred in enumerate((True,) if args.deferred_only else (False, True)):
            store = Path(tmp) / f"store-{number}.sqlite"
            asyncio.run(measure(server.base_url, store, args.requests, deferred))
            print()


if __name__ == "__main__":
    main()

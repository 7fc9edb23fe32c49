"""How close the client layer gets to the limit an endpoint allows, and what it costs in CPU.

Runs N calls through ``LLMClient`` (with its SQLite store) against the project's test server,
which answers after a fixed latency in its own process. Prints wall time / ideal, where
ideal = calls x latency / concurrency, and the harness CPU time per call (this process only).
Then reruns the same calls and prints how many reached the server (must be 0: all cached).

    python benchmarks/client_overhead.py --calls 5000 --latency-ms 50 --concurrency 64
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from polistemics.llm.client import LLMClient, RetryPolicy
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.store import RunStore

try:  # the loop a run uses (uvloop where installed); older trees ran on asyncio's own
    from polistemics.llm.event_loop import loop_name
    from polistemics.llm.event_loop import run as run_loop
except ImportError:  # measuring an older tree's src
    run_loop, loop_name = asyncio.run, lambda: "asyncio"


class ServerProcess:
    """The test server's process: its base URL and, once it has stopped, its CPU seconds."""

    def __init__(self, base_url: str):
        self.base_url = base_url
        self.cpu_seconds = 0.0


@contextmanager
def test_server(latency_ms: float, extra: list[str] | None = None):
    """The test server in a separate process, so its CPU is not counted as the harness's."""
    command = [
        sys.executable,
        "-m",
        "polistemics.testing.server",
        "--port",
        "0",
        "--latency-ms",
        str(latency_ms),
        *(extra or []),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    server = ServerProcess("")
    try:
        line = process.stdout.readline().strip()
        if not line.startswith("READY "):
            raise RuntimeError(f"test server did not start: {line!r}")
        server.base_url = line.split(" ", 1)[1]
        yield server
    finally:
        process.terminate()
        _, status, usage = os.wait4(process.pid, 0)  # this process's own CPU time
        process.returncode = os.waitstatus_to_exitcode(status)
        server.cpu_seconds = usage.ru_utime + usage.ru_stime


async def run_calls(
    client: LLMClient, endpoint: ModelEndpoint, calls: int, *, close: bool = False
) -> list:
    try:
        return await asyncio.gather(
            *(
                client.complete(
                    endpoint,
                    [{"role": "user", "content": f"benchmark question {i}"}],
                    stage="bench",
                )
                for i in range(calls)
            )
        )
    finally:
        if close:
            await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()

    with test_server(args.latency_ms) as server, tempfile.TemporaryDirectory() as tmp:
        endpoint = ModelEndpoint(
            name="bench",
            model="fake-model",
            base_url=server.base_url,
            max_concurrency=args.concurrency,
            timeout=30,
        )
        with RunStore(Path(tmp) / "store.sqlite") as store:
            client = LLMClient(store=store, retry=RetryPolicy(base_delay=0.05))
            cpu0, wall0 = time.process_time(), time.perf_counter()
            results = run_loop(run_calls(client, endpoint, args.calls, close=True))
            wall = time.perf_counter() - wall0
            cpu = time.process_time() - cpu0
            failed = sum(not r.ok for r in results)

            rerun_client = LLMClient(store=store)
            run_loop(run_calls(rerun_client, endpoint, args.calls, close=True))

    ideal = args.calls * args.latency_ms / 1000 / args.concurrency
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"event loop            {loop_name()}")
    print(f"calls                 {args.calls}")
    print(f"failed                {failed}")
    print(f"latency / concurrency {args.latency_ms:g} ms / {args.concurrency}")
    print(f"wall time             {wall:.2f} s")
    print(f"ideal                 {ideal:.2f} s")
    print(f"wall / ideal          {wall / ideal:.3f}")
    print(f"harness CPU per call  {cpu / args.calls * 1000:.3f} ms")
    print(
        f"test server CPU/call  {server.cpu_seconds / args.calls * 1000:.3f} ms (its own process)"
    )
    print(f"peak memory (RSS)     {peak_mb:.0f} MB")
    print(f"rerun calls made      {rerun_client.network_calls}")


if __name__ == "__main__":
    main()

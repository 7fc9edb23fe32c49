"""One two-thread server against two one-thread servers for the bundled model: a finished local
run's calls replayed over HTTP, stage by stage in the order they ran, first on one server with
all the cores, then on as many servers as ``--servers`` (one thread each on 2 cores), the way a
run sends them: calls of a stage side by side, a judged answer's calls one after another
(``judge_answers`` with ``calls_at_once``), each call to the free server that read the longest
opening of it (``LocalServerPool.checkout``). Prints seconds per stage for each layout and how
many outputs equal the one-server outputs.

    python benchmarks/local_lanes.py runs/demo [--limit N] [--servers 2]

Run it on a quiet machine, and more than once: the layouts run one after the other, and a 2-core
VM's speed drifts by a quarter over tens of minutes. Needs the local extra; reads the store
read-only.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from local_server import stored_requests  # noqa: E402  (the sibling benchmark's reader)

from polistemics.llm.local_server import LocalServerPool, default_threads  # noqa: E402
from polistemics.llm.registry import builtin_registry  # noqa: E402


def chains(requests: list[tuple[str, dict]]) -> list[list[tuple[int, str, dict]]]:
    """Calls grouped as a run sends them: a judged answer's calls (same text up to the rubric,
    in a row) in one chain, every other call alone."""
    grouped: list[list[tuple[int, str, dict]]] = []
    previous = None
    for number, (stage, body) in enumerate(requests):
        opening = body["messages"][-1]["content"].split("Dimension Definition:")[0]
        key = (stage, opening) if stage == "judge" else None
        if key is not None and key == previous:
            grouped[-1].append((number, stage, body))
        else:
            grouped.append([(number, stage, body)])
        previous = key
    return grouped


def _work(pool, endpoint, waiting, lock, outputs) -> None:
    """Take chains until none is left; each chain's calls one after another."""
    with httpx.Client(timeout=600) as http:
        while True:
            with lock:
                chain = next(waiting, None)
            if chain is None:
                return
            for number, _, body in chain:
                url = pool.checkout(endpoint, json.dumps(body["messages"]))
                try:
                    reply = http.post(url + "/chat/completions", json=body).json()
                finally:
                    pool.checkin(url)
                outputs[number] = reply["choices"][0]["message"]["content"]


def replay(pool: LocalServerPool, servers: int, requests: list[tuple[str, dict]]):
    """(seconds per stage, outputs in request order) with ``servers`` calls at once."""
    endpoint = (
        builtin_registry("default").get("local").model_copy(update={"max_concurrency": servers})
    )
    pool.base_url(endpoint)  # start the servers before the clock
    outputs: list[str | None] = [None] * len(requests)
    seconds: dict[str, float] = defaultdict(float)
    by_stage: dict[str, list[list[tuple[int, str, dict]]]] = defaultdict(list)
    for chain in chains(requests):
        by_stage[chain[0][1]].append(chain)
    for stage, stage_chains in by_stage.items():
        waiting = iter(stage_chains)
        lock = threading.Lock()
        started = time.perf_counter()
        threads = [
            threading.Thread(target=_work, args=(pool, endpoint, waiting, lock, outputs))
            for _ in range(servers)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        seconds[stage] = time.perf_counter() - started
    return seconds, outputs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("run_dir")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--servers", type=int, default=2)
    args = parser.parse_args()
    requests = list(stored_requests(args.run_dir, "%", args.limit))
    results = {}
    for servers in (1, args.servers):
        with LocalServerPool() as pool:
            results[servers] = replay(pool, servers, requests)
    stages = list(results[1][0])
    budget = default_threads()
    print(f"{len(requests)} calls, {budget} threads")
    for servers, (seconds, outputs) in results.items():
        differ = [
            stage
            for (stage, _), a, b in zip(requests, outputs, results[1][1], strict=True)
            if a != b
        ]
        per_stage = ", ".join(f"{stage} {seconds[stage]:.1f} s" for stage in stages)
        print(
            f"{servers} server(s) of {max(1, budget // servers)} thread(s): "
            f"{sum(seconds.values()):.1f} s ({per_stage}); "
            f"{len(outputs) - len(differ)}/{len(outputs)} outputs as one"
            + (f" (differ: {', '.join(differ)})" if differ else "")
        )


if __name__ == "__main__":
    main()

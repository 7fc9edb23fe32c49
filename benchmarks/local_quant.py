"""The bundled SmolLM2 in the weight type it ships in (Q4_1) against the same weights stored as
Q8_0 (what ``polistemics.llm.local_server.smollm2_path`` serves): a finished local run's calls
replayed in the order they ran, each on both files in turn, in process, greedy, with each call's
stored ``max_tokens``. Prints seconds per stage for each file and how many outputs are identical.

    python benchmarks/local_quant.py runs/demo [--limit N] [--threads T]

Each file keeps its own context, so each reuses its previous prompt's prefix as the serial
llama.cpp server does. Needs the local extra; reads the store read-only.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import time
import zlib
from collections import defaultdict

from llama_cpp import Llama

from polistemics.llm.local_server import default_threads, smollm2_path, smollm2_q4_1_path


def stored_calls(run_dir: str, limit: int | None):
    db = sqlite3.connect(f"file:{run_dir}/store.sqlite?mode=ro", uri=True)
    rows = db.execute(
        "SELECT stage, messages, params FROM calls "
        "WHERE status = 'ok' AND messages IS NOT NULL ORDER BY created_at"
    ).fetchall()
    for stage, blob, params in rows[:limit]:
        yield stage, json.loads(zlib.decompress(blob)), json.loads(params)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("run_dir")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--threads", type=int, default=default_threads())
    args = parser.parse_args()
    files = {"Q4_1": smollm2_q4_1_path(), "Q8_0": smollm2_path()}
    models = {
        name: Llama(
            str(path),
            n_ctx=4096,
            n_threads=args.threads,
            n_threads_batch=args.threads,
            verbose=False,
        )
        for name, path in files.items()
    }
    seconds: dict[str, dict[str, float]] = defaultdict(lambda: dict.fromkeys(files, 0.0))
    calls: dict[str, int] = defaultdict(int)
    same = 0
    for stage, messages, params in stored_calls(args.run_dir, args.limit):
        outputs = []
        for name, llm in models.items():
            started = time.perf_counter()
            reply = llm.create_chat_completion(
                messages=messages, temperature=0, max_tokens=params.get("max_tokens") or 64
            )
            seconds[stage][name] += time.perf_counter() - started
            outputs.append(reply["choices"][0]["message"]["content"])
        calls[stage] += 1
        same += outputs[0] == outputs[1]
    print(f"{args.run_dir}: threads={args.threads} load={os.getloadavg()[0]:.1f}")
    print(f"  {'stage':<14}{'calls':>6}" + "".join(f"{name + ' s':>10}" for name in files))
    for stage, by_file in sorted(seconds.items()):
        print(f"  {stage:<14}{calls[stage]:>6}" + "".join(f"{s:>10.1f}" for s in by_file.values()))
    totals = [sum(by_file[name] for by_file in seconds.values()) for name in files]
    print(f"  {'total':<14}{sum(calls.values()):>6}" + "".join(f"{s:>10.1f}" for s in totals))
    print(f"  identical greedy outputs: {same} of {sum(calls.values())}")


if __name__ == "__main__":
    main()

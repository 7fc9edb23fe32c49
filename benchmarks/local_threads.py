"""llama.cpp threads for the bundled local model: one judge prompt of a finished run, timed in
process with 1 and with 2 threads, twice each (prints wall and CPU seconds and the load average).

    python benchmarks/local_threads.py runs/demo

Used to choose ``polistemics.llm.local_server.default_threads``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
import zlib

from llama_cpp import Llama

from polistemics.llm.local_server import model_file


def first_judge_prompt(run_dir: str) -> list[dict]:
    uri = f"file:{run_dir}/store.sqlite?mode=ro"
    with sqlite3.connect(uri, uri=True) as store:
        row = store.execute(
            "select messages from calls where stage='judge' order by created_at limit 1"
        ).fetchone()
    if row is None:
        raise SystemExit(f"{run_dir}: no judge call in the store")
    return json.loads(zlib.decompress(row[0]))


def main() -> None:
    messages = first_judge_prompt(sys.argv[1] if len(sys.argv) > 1 else "runs/demo")
    path = str(model_file("smollm2"))
    models = {
        n: Llama(path, n_ctx=2048, n_threads=n, n_threads_batch=n, verbose=False) for n in (1, 2)
    }
    for _ in range(2):
        for n, llm in models.items():
            llm.reset()
            wall, cpu = time.perf_counter(), time.process_time()
            reply = llm.create_chat_completion(messages=messages, temperature=0, max_tokens=16)
            print(
                f"threads={n} wall={time.perf_counter() - wall:.1f}s "
                f"cpu={time.process_time() - cpu:.1f}s "
                f"prompt={reply['usage']['prompt_tokens']} out={reply['usage']['completion_tokens']} "
                f"load={os.getloadavg()[0]:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()

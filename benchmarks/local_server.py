"""The bundled model's server, as the demo starts it against llama-cpp-python's server with its
defaults: a finished local run's calls replayed over HTTP in the order they ran, against each
server in turn (one at a time, so they never share the cores). Prints seconds per stage and, per
stage, how many outputs equal the first server's.

    python benchmarks/local_server.py runs/demo [--limit N] [--stage judge]

The servers:
- ``llama_cpp.server``: llama-cpp-python's server with its defaults (``logits_all`` True);
- ``+ logits_all False``: the same server computing logits for the last prompt token only;
- ``polistemics``: what ``LocalServer`` starts: the same, plus the grammar checked on the sampled
  token first (``polistemics.llm.llama_server``).

Greedy calls (judges, audits, answers) must come out identical on all three. Sampled calls
(standardisation and Vague, temperature 0.3) under a grammar draw differently on the last server.
Needs the local extra; reads the store read-only.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import time
import zlib
from collections import defaultdict

import httpx

from polistemics.llm.grammar import schema_to_gbnf
from polistemics.llm.local_server import LocalServer, smollm2_path

SERVERS = {
    "llama_cpp.server": ("llama_cpp.server", True),
    "+ logits_all False": ("llama_cpp.server", False),
    "polistemics": ("polistemics.llm.llama_server", False),
}


class BenchServer(LocalServer):
    module: str = "polistemics.llm.llama_server"
    logits_all: bool = False

    def command(self) -> list[str]:
        command = super().command()
        command[command.index("polistemics.llm.llama_server")] = self.module
        if self.logits_all:
            at = command.index("--logits_all")
            del command[at : at + 2]
        return command


def stored_requests(run_dir: str, stage: str, limit: int | None):
    db = sqlite3.connect(f"file:{run_dir}/store.sqlite?mode=ro", uri=True)
    rows = db.execute(
        "SELECT stage, messages, params, sample_index FROM calls "
        "WHERE status = 'ok' AND messages IS NOT NULL AND stage LIKE ? ORDER BY created_at",
        (stage,),
    ).fetchall()
    for stage_name, blob, params_json, sample_index in rows[:limit]:
        params = json.loads(params_json)
        body = {
            "messages": json.loads(zlib.decompress(blob)),
            "temperature": params.get("temperature", 0.0),
            "max_tokens": params.get("max_tokens") or 64,
            # as the client sends it: each sample (and retry) draws with its own seed
            "seed": None if params.get("seed") is None else params["seed"] + sample_index,
            "repeat_penalty": 1.0,  # as the client sends to local endpoints
            **(params.get("extra_body") or {}),
        }
        if params.get("grammar") or params.get("json_schema"):
            body["grammar"] = params.get("grammar") or schema_to_gbnf(
                in_order(params["json_schema"])
            )
        yield stage_name, body


def in_order(schema: dict) -> dict:
    """The store keeps parameters as canonical JSON (sorted keys); the grammar's property order
    follows the schema's, which the pipeline writes in ``required`` order."""
    properties = schema.get("properties") or {}
    order = [name for name in schema.get("required", []) if name in properties]
    if order:
        rest = {name: value for name, value in properties.items() if name not in order}
        schema = {**schema, "properties": {**{n: properties[n] for n in order}, **rest}}
    return schema


def replay(name: str, requests: list[tuple[str, dict]]) -> tuple[dict[str, float], list[str]]:
    module, logits_all = SERVERS[name]
    server = BenchServer(smollm2_path())
    server.module, server.logits_all = module, logits_all
    server.start()
    seconds: dict[str, float] = defaultdict(float)
    outputs = []
    try:
        with httpx.Client(timeout=600) as http:
            for stage, body in requests:
                started = time.perf_counter()
                reply = http.post(f"{server.base_url}/chat/completions", json=body)
                reply.raise_for_status()
                seconds[stage] += time.perf_counter() - started
                outputs.append(reply.json()["choices"][0]["message"]["content"])
    finally:
        server.stop()
    return seconds, outputs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("run_dir")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--stage", default="%", help="one stage (SQL LIKE pattern), e.g. judge")
    args = parser.parse_args()
    requests = list(stored_requests(args.run_dir, args.stage, args.limit))
    stages = sorted({stage for stage, _ in requests})
    results = {name: replay(name, requests) for name in SERVERS}
    first = next(iter(results.values()))[1]
    print(f"{args.run_dir}: {len(requests)} calls, load {os.getloadavg()[0]:.1f}")
    print(f"  {'server':<20}" + "".join(f"{stage:>14}" for stage in stages) + f"{'total s':>10}")
    for name, (seconds, _) in results.items():
        cells = "".join(f"{seconds[stage]:>14.1f}" for stage in stages)
        print(f"  {name:<20}{cells}{sum(seconds.values()):>10.1f}")
    print("  outputs equal to the first server's, per stage:")
    for name, (_, outputs) in results.items():
        same = defaultdict(int)
        total = defaultdict(int)
        for (stage, _), mine, theirs in zip(requests, outputs, first, strict=True):
            total[stage] += 1
            same[stage] += mine == theirs
        cells = "".join(f"{f'{same[s]}/{total[s]}':>14}" for s in stages)
        print(f"  {name:<20}{cells}")


if __name__ == "__main__":
    main()

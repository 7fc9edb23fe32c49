"""``polistemics batch export`` and ``batch import`` at the paper's scale, as a user runs them.

The paper-scale synthetic study (``paper_scale.py``) is run online against the project's test
server; then one judge's calls (``judge-1``, about a third of the study's judge calls) are taken
out of the run store, as if that judge were an open model run offline. ``batch export`` writes
the calls the run would make now for that judge (vLLM's batch input JSONL); an output file in
vLLM's batch output format is made from the replies taken out (not timed); ``batch import``
stores it. Each command runs in its own process; prints its requests, file size, wall time, CPU
seconds and peak memory (RSS, read with wait4), and checks that every call is back in the store
with the reply it had.

    python benchmarks/batch_files_scale.py
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from client_overhead import test_server  # noqa: E402
from paper_scale import run_cli, write_config  # noqa: E402

ENDPOINT = "judge-1"
STAGE = "judge"
_TAKEN = (
    "SELECT key, model, response_text, finish_reason, input_tokens, output_tokens, "
    "cached_input_tokens FROM calls WHERE endpoint = ? AND stage = ?"
)


def command(*args: str) -> dict:
    """``polistemics ARGS`` in its own process: its wall time, CPU seconds and peak RSS."""
    wall0 = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "polistemics", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,  # the study's progress lines
        text=True,
    )
    output = process.stdout.read() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"polistemics {args[0]} {args[1]} failed: {output}")
    return {
        "wall": time.perf_counter() - wall0,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "output": output.strip(),
    }


def take_out(store: Path) -> dict[str, tuple]:
    """The judge's stored calls, removed from the store: key -> (model, text, finish, tokens)."""
    db = sqlite3.connect(store)
    try:
        rows = db.execute(_TAKEN, (ENDPOINT, STAGE)).fetchall()
        db.execute("DELETE FROM calls WHERE endpoint = ? AND stage = ?", (ENDPOINT, STAGE))
        db.commit()
    finally:
        db.close()
    return {row[0]: row[1:] for row in rows}


def write_output(requests: Path, replies: dict[str, tuple], out: Path) -> int:
    """vLLM's batch output for each request of ``requests``, with the reply the call had."""
    lines = 0
    with requests.open(encoding="utf-8") as source, out.open("w", encoding="utf-8") as sink:
        for raw in source:
            key = json.loads(raw)["custom_id"]
            model, text, finish, tokens_in, tokens_out, cached = replies[key]
            body = {
                "id": f"cmpl-{lines}",
                "object": "chat.completion",
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": finish,
                    }
                ],
                "usage": {
                    "prompt_tokens": tokens_in,
                    "completion_tokens": tokens_out,
                    "total_tokens": tokens_in + tokens_out,
                    "prompt_tokens_details": {"cached_tokens": cached},
                },
            }
            line = {
                "id": f"vllm-{lines}",
                "custom_id": key,
                "response": {"status_code": 200, "request_id": f"vllm-{lines}", "body": body},
                "error": None,
            }
            sink.write(json.dumps(line, ensure_ascii=False) + "\n")
            lines += 1
    return lines


def stored_again(store: Path, replies: dict[str, tuple]) -> bool:
    db = sqlite3.connect(store)
    try:
        found = {row[0]: row[1:] for row in db.execute(_TAKEN, (ENDPOINT, STAGE))}
    finally:
        db.close()
    return found.keys() == replies.keys() and all(
        found[key][1] == replies[key][1] for key in replies
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=1, help="paper_scale.py's --scale")
    args = parser.parse_args()
    with test_server(0.0) as server, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = write_config(folder, server.base_url, concurrency=64, scale=args.scale)
        study = run_cli(config)
        run_dir = folder / "run"
        store = run_dir / "store.sqlite"
        replies = take_out(store)
        requests = folder / "judge-1.jsonl"
        exported = command(
            "batch", "export", str(run_dir), "--stage", STAGE, "--endpoint", ENDPOINT,
            "--out", str(requests), "--config", str(config),
        )  # fmt: skip
        with requests.open("rb") as handle:
            request_lines = sum(1 for _ in handle)
        output = folder / "judge-1-output.jsonl"
        output_lines = write_output(requests, replies, output)
        imported = command("batch", "import", str(run_dir), str(output), "--config", str(config))
        back = stored_again(store, replies)
        sizes = {"export": requests.stat().st_size, "import": output.stat().st_size}

    print(f"study calls stored    {study['manifest']['totals']['calls']}")
    print(f"calls taken out       {len(replies)} ({ENDPOINT}, stage {STAGE})")
    for name, figures, path_lines in (
        ("export", exported, request_lines),
        ("import", imported, output_lines),
    ):
        print(f"{name:<6} lines          {path_lines}, {sizes[name] / 2**20:.1f} MB")
        print(f"{name:<6} says           {figures['output'].splitlines()[0]}")
        print(f"{name:<6} wall           {figures['wall']:.1f} s")
        print(f"{name:<6} CPU            {figures['cpu']:.1f} s")
        print(f"{name:<6} peak memory    {figures['peak_mb']:.0f} MB (RSS)")
    print(f"every call back       {back}")


if __name__ == "__main__":
    main()

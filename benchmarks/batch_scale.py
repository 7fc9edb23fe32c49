"""The paper-scale synthetic study (``paper_scale.py``) with every model in batch mode, against
the project's test server's batch API in its own process.

Every model of the study gets ``execution = "batch"``; each batch takes ``--batch-latency-ms``
at the server. Prints the requests sent in batches, the batches, the wall time, the harness's
CPU and peak memory, the cost per mode from run.json, and how many calls a rerun made (must be
0); then checks the scores against the same study run online (``--compare-online``).

    python benchmarks/batch_scale.py --batch-latency-ms 2000
    python benchmarks/batch_scale.py --batch-latency-ms 2000 --compare-online
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from client_overhead import test_server  # noqa: E402
from paper_scale import run_cli, write_config  # noqa: E402

BATCH_KEYS = (
    'execution = "batch"\nbatch_flush_seconds = {flush}\nbatch_poll_seconds = {poll}\n'
    "price_input_per_mtok = 1.0\nprice_output_per_mtok = 2.0\n"
)


def batch_config(folder: Path, base_url: str, flush: float, poll: float) -> Path:
    """``paper_scale``'s study with every model a batch endpoint (priced, so costs show)."""
    config = write_config(folder, base_url, concurrency=64)
    models = folder / "models.toml"
    keys = BATCH_KEYS.format(flush=flush, poll=poll)
    models.write_text(re.sub(r"(timeout = 60\n)", lambda m: m.group(1) + keys, models.read_text()))
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-latency-ms", type=float, default=2000.0)
    parser.add_argument("--flush-seconds", type=float, default=0.5)
    parser.add_argument("--poll-seconds", type=float, default=0.5)
    parser.add_argument("--compare-online", action="store_true")
    args = parser.parse_args()
    server_args = ["--batch-latency-ms", str(args.batch_latency_ms)]

    with test_server(0.0, server_args) as server, tempfile.TemporaryDirectory() as tmp:
        config = batch_config(Path(tmp), server.base_url, args.flush_seconds, args.poll_seconds)
        first = run_cli(config)
        rerun = run_cli(config)
        summary = (Path(tmp) / "run" / "scores" / "summary.json").read_text()
        online_summary = None
        if args.compare_online:
            online_dir = Path(tmp) / "online"
            online_dir.mkdir()
            run_cli(write_config(online_dir, server.base_url, concurrency=64))
            online_summary = (online_dir / "run" / "scores" / "summary.json").read_text()

    manifest = first["manifest"]
    batches = manifest["batches"]
    print(f"answers               {first['answers']}")
    print(f"judge records         {first['judge_records']}")
    print(f"calls stored          {manifest['totals']['calls']}")
    print(f"batch requests sent   {batches['requests_sent']} in {batches['created']} batches")
    print(f"resubmitted           {batches['resubmitted']}")
    print(f"batch latency         {args.batch_latency_ms:g} ms per batch at the server")
    stages = manifest["stage_seconds"]
    print("stage seconds         " + ", ".join(f"{k} {v:.1f}" for k, v in stages.items()))
    print(f"wall time             {first['wall']:.1f} s  (the whole command, imports to report)")
    print(f"harness CPU           {first['cpu']:.1f} s")
    print(f"test server CPU       {server.cpu_seconds:.1f} s (its own process)")
    print(f"peak memory (RSS)     {first['peak_mb']:.0f} MB")
    for mode, part in manifest["execution"].items():
        print(f"cost {mode:<16} ${part['cost_usd']:.4f} for {part['calls']} calls")
    print(f"rerun calls made      {rerun['manifest']['calls_made_this_run']}")
    if online_summary is not None:
        print(f"scores as online      {summary == online_summary}")


if __name__ == "__main__":
    main()

"""The paper-scale study with provider faults: nothing may be lost.

Same synthetic study as ``paper_scale.py``, but the test server fails 5% of requests transiently
(HTTP 503, once per attempt) and 0.5% of prompts permanently (HTTP 500 on every attempt).
Prints calls completed, failed (recorded with their reason), retried, and lost (expected
records that are neither answered nor recorded as failed: must be 0), and wall / ideal.

    python benchmarks/faults.py --latency-ms 50 --concurrency 64
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from client_overhead import test_server  # noqa: E402
from paper_scale import write_config  # noqa: E402

from polistemics.rubrics import active_rubrics  # noqa: E402
from polistemics.run.config import load_config  # noqa: E402
from polistemics.run.finish import finish_run  # noqa: E402
from polistemics.run.pipeline import Study, StudyResult  # noqa: E402


def run_in_process(config_path: Path) -> tuple[Study, StudyResult, float]:
    """The study in this process, so its results can be checked record by record."""
    config = load_config(config_path)
    study = Study(config, config.run_dir(), log=lambda message: None)
    started = time.perf_counter()
    result = asyncio.run(study.execute(quiet=True))
    finish_run(study, result)
    return study, result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--transient", type=float, default=0.05)
    parser.add_argument("--permanent", type=float, default=0.005)
    args = parser.parse_args()

    flags = [
        "--transient-fault-rate",
        str(args.transient),
        "--permanent-fault-rate",
        str(args.permanent),
    ]
    with test_server(args.latency_ms, flags) as server, tempfile.TemporaryDirectory() as tmp:
        config = write_config(Path(tmp), server.base_url, args.concurrency)
        study, result, wall = run_in_process(config)
        with sqlite3.connect(Path(tmp) / "run" / "store.sqlite") as db:
            rows = db.execute("SELECT status, attempts FROM calls").fetchall()

    items = [item for run in result.elections for item in run.items]
    targets = len(study.config.targets)
    judges = len(study.config.judges)
    ok_answers = [a for a in result.answers if a.ok]
    by_key = {item.key: item for item in items}
    expected_answers = len(items) * targets * study.config.samples
    expected_judge_records = sum(
        judges * len(active_rubrics(by_key[a.item_key].environment)) for a in ok_answers
    )
    lost = (expected_answers - len(result.answers)) + (
        expected_judge_records - len(result.verdicts)
    )
    completed = sum(status == "ok" for status, _ in rows)
    failed = sum(status != "ok" for status, _ in rows)
    retried = sum(attempts > 1 for _, attempts in rows)
    extra_attempts = sum(attempts - 1 for _, attempts in rows)
    calls = result.calls_made
    ideal = calls * args.latency_ms / 1000 / args.concurrency
    unjudged = sum(not r.parsed for r in result.verdicts)
    print(f"fault rates           {args.transient:.1%} transient, {args.permanent:.1%} permanent")
    print(f"calls                 {len(rows)} ({extra_attempts} extra attempts)")
    print(f"completed             {completed}")
    print(f"failed (recorded)     {failed}")
    print(f"retried               {retried}")
    print(
        f"answers failed        {sum(not a.ok for a in result.answers)} of {len(result.answers)} (not judged, counted)"
    )
    print(
        f"judge records missing {unjudged} of {len(result.verdicts)} (excluded from scores, counted)"
    )
    print(f"lost                  {lost}")
    print(f"wall time             {wall:.1f} s")
    print(f"wall / ideal          {wall / ideal:.2f}  (ideal {ideal:.1f} s)")


if __name__ == "__main__":
    main()

"""The finish's scoring step on a finished run, in this process: CPU seconds and peak RSS.

What ``run.pipeline.score_study`` does with the answers + judges stage's ``judges.jsonl`` (the
panel's tally, read chunk by chunk, then the majority's cells), and then the per-judge analyses
(``analyses.judges.judge_analyses``, from the vote totals the tally counted). Run it in a fresh
process per measurement (peak RSS is the process's high-water mark):

    python benchmarks/paper_scale.py --scale 8 --latency-ms 5 --concurrency 64 --out /tmp/s8
    PYTHONPATH=src /usr/bin/time -v python benchmarks/score_step.py /tmp/s8/run
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path
from types import SimpleNamespace

from polistemics.analyses.judges import judge_analyses
from polistemics.run.pipeline import score_study
from polistemics.runlog.rundir import RunDir
from polistemics.runlog.spool import SpooledJudgeRecords


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="a finished run's directory")
    parser.add_argument("--panel-size", type=int, default=3)
    args = parser.parse_args()
    run = RunDir(args.run_dir)
    items = run.read_items()
    with run.judges.open("rb") as handle:
        count = sum(1 for _ in handle)
    records = SpooledJudgeRecords(run.judges, count)
    print(f"{count:,} judge records; items read: peak {peak_mb():,.0f} MB")
    result = SimpleNamespace(items=items, elections=[], verdicts=records)
    started = time.process_time()
    scored = score_study(result, SimpleNamespace(judges=[None] * args.panel_size))
    print(f"score_study: {time.process_time() - started:.1f} CPU s, peak {peak_mb():,.0f} MB")
    started = time.process_time()
    judges = judge_analyses(records, items, args.panel_size, tally=scored.tally)
    tables = "none" if judges is None else f"{len(judges.pass_rates)} pass-rate rows"
    print(
        f"judge_analyses ({tables}): {time.process_time() - started:.1f} CPU s, "
        f"peak {peak_mb():,.0f} MB"
    )


if __name__ == "__main__":
    main()

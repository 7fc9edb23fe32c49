"""``polistemics compare`` at the paper's scale: two synthetic runs of ~13k answers and ~107k
judge records each, with the default bootstrap (1000 resamples).

Builds the test suite's synthetic paper-scale run twice from the authors' Dutch release (in
../shared) with different verdict seeds, so the two runs hold the same observations (a paired
comparison, like one audit rerun after a model update), then runs ``polistemics compare A B
--json --out DIR`` in a child process and prints its wall time, its peak resident memory
(``ru_maxrss`` of the child), the number of cells compared and the page size.

    python benchmarks/compare_scale.py [RELEASE_FOLDER]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.report.synthetic_run import build_synthetic_run  # noqa: E402

RELEASE = REPO.parent / "shared/reference/polistemics-v1.0/data/experiments/nl_tk2025_full_v1"


def lines(path: Path) -> int:
    with path.open(encoding="utf-8") as handle:
        return sum(1 for _ in handle)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", type=Path, nargs="?", default=RELEASE)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs = [build_synthetic_run(args.release, Path(tmp) / f"run{s}", seed=s) for s in (0, 1)]
        for run in runs:
            print(
                f"{run.name}: answers {lines(run / 'answers.jsonl')}, "
                f"judge records {lines(run / 'judges.jsonl')}, "
                f"cells {lines(run / 'scores' / 'cells.csv') - 1}"
            )
        out = Path(tmp) / "compare"
        env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
        command = [sys.executable, "-m", "polistemics", "compare", *map(str, runs)]
        started = time.perf_counter()
        done = subprocess.run(
            [*command, "--json", "--out", str(out)], env=env, capture_output=True, text=True
        )
        elapsed = time.perf_counter() - started
        if done.returncode:
            sys.exit(done.stderr)
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        doc = json.loads(done.stdout)
        rows = {name: len(table) for name, table in doc["deltas"].items()}
        print(f"mode {doc['mode']}, resamples {doc['bootstrap']['resamples']}, rows {rows}")
        print(f"significant after Holm: {doc['tests']['n_significant']}")
        print(f"compare --json --out: {elapsed:.1f} s wall, peak RSS {peak_mb:.0f} MB")
        page = out / "compare.html"
        print(
            f"page {page.stat().st_size / 1e6:.2f} MB, {len(list((out / 'figures').iterdir()))} figures"
        )


if __name__ == "__main__":
    main()

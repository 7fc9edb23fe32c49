"""``polistemics compare`` at the paper's scale: two synthetic runs of ~13k answers and ~107k
judge records each, with the default bootstrap (1000 resamples).

Builds the test suite's synthetic paper-scale run twice from the authors' Dutch release (in
../shared) with different verdict seeds, so the two runs hold the same observations (a paired
comparison, like one audit rerun after a model update), then runs ``polistemics compare A B
--json --out DIR`` in a child process and prints its wall time, its peak resident memory
(``ru_maxrss`` of the child), the number of cells compared and the page size. Then the
multi-election report of the same runs, the second relabelled as another election (every
``nl_tk2025`` in its files becomes ``de_bench``): ``polistemics report A B --out DIR`` with the
default options, its wall time, peak memory and page size.

    python benchmarks/compare_scale.py [RELEASE_FOLDER]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The test suite's helpers, imported as top-level modules: ppi-python (a dev dependency)
# installs a package named "tests" that would shadow ours.
sys.path.insert(0, str(REPO / "tests"))

from report.synthetic_run import build_synthetic_run  # noqa: E402

RELEASE = REPO.parent / "shared/reference/polistemics-v1.0/data/experiments/nl_tk2025_full_v1"


def lines(path: Path) -> int:
    with path.open(encoding="utf-8") as handle:
        return sum(1 for _ in handle)


def timed(command: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) of the child and its stdout."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, env=env, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode:
            sys.exit(err.read())
        return elapsed, usage.ru_maxrss / 1024, out.read()


def relabelled(run: Path, target: Path, old: str = "nl_tk2025", new: str = "de_bench") -> Path:
    """A copy of ``run`` in which every ``old`` (file text and names) is ``new``."""
    for path in sorted(run.rglob("*")):
        destination = target / str(path.relative_to(run)).replace(old, new)
        if path.is_dir():
            destination.mkdir(parents=True, exist_ok=True)
        else:
            destination.parent.mkdir(parents=True, exist_ok=True)
            text = path.read_text(encoding="utf-8")
            destination.write_text(text.replace(old, new), encoding="utf-8")
    return target


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
        polistemics = [sys.executable, "-m", "polistemics"]
        elapsed, peak_mb, stdout = timed(
            [*polistemics, "compare", *map(str, runs), "--json", "--out", str(out)]
        )
        doc = json.loads(stdout)
        rows = {name: len(table) for name, table in doc["deltas"].items()}
        print(f"mode {doc['mode']}, resamples {doc['bootstrap']['resamples']}, rows {rows}")
        print(f"significant after Holm: {doc['tests']['n_significant']}")
        print(f"compare --json --out: {elapsed:.1f} s wall, peak RSS {peak_mb:.0f} MB")
        page = out / "compare.html"
        figures = len(list((out / "figures").iterdir()))
        print(f"page {page.stat().st_size / 1e6:.2f} MB, {figures} figures")

        second = relabelled(runs[1], Path(tmp) / "de_run")
        report = Path(tmp) / "report"
        elapsed, peak_mb, _ = timed(
            [*polistemics, "report", str(second), str(runs[0]), "--out", str(report)]
        )
        page = report / "report.html"
        figures = len(list((report / "figures").iterdir()))
        print(
            f"report A B (two elections): {elapsed:.1f} s wall, peak RSS {peak_mb:.0f} MB, "
            f"page {page.stat().st_size / 1e6:.1f} MB, {figures} figure files"
        )


if __name__ == "__main__":
    main()

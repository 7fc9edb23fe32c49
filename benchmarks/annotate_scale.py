"""The annotation core at the paper's scale (~13k answers, ~107k judge records), 2,000 items.

Builds the test suite's synthetic paper-scale run (from the authors' Dutch release in ../shared)
unless given one, then, each in a fresh process so that its peak memory is its own:

1. ``sample``: ``draw_sample`` + ``write_sample`` of ``--n`` items (what ``annotate sample`` does);
2. ``serve``: what the app does for an annotator: open the store, ``next_for``, ``item_view``
   (time to first item, including reading the run), then ``--items`` times: label every
   sub-question, ``next_for``, ``item_view`` (time per next item), and the process's peak RSS.

    python benchmarks/annotate_scale.py [--run-dir DIR] [--n 2000] [--items 200]

Timings on a shared machine are noisy; the counts (lines, items) are not.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# tests/ itself, not the repository: a package named "tests" in the environment would shadow it.
sys.path.insert(0, str(REPO / "tests"))

RELEASE = REPO.parent / "shared/reference/polistemics-v1.0/data/experiments/nl_tk2025_full_v1"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def phase_sample(run_dir: Path, n: int) -> dict:
    from polistemics.annotate.item_view import prepare_views
    from polistemics.annotate.sample import SampleOptions, draw_sample
    from polistemics.annotate.store import AnnotationStore

    started = time.perf_counter()
    items, design = draw_sample(run_dir, SampleOptions(n=n, seed=0))
    with AnnotationStore.open(run_dir) as store:
        store.write_sample(items, replace=True)
    drawn = time.perf_counter() - started
    cached = prepare_views(run_dir)
    return {
        "sample_seconds": drawn,
        "sample_cpu_seconds": time.process_time(),
        "views_seconds": time.perf_counter() - started - drawn,
        "views_cached": cached,
        "population": design.population,
        "population_split": design.population_split,
        "drawn": design.drawn,
        "strata": len(design.strata),
        "peak_rss_mb": peak_rss_mb(),
    }


def phase_serve(run_dir: Path, items: int, cold: bool) -> dict:
    if cold:
        from polistemics.annotate.store import AnnotationStore

        with AnnotationStore.open(run_dir) as store:
            store.save_views("", {})  # empty the view cache: read the run files
    started, started_cpu = time.perf_counter(), time.process_time()
    from polistemics.annotate.item_view import item_view
    from polistemics.annotate.store import AnnotationStore

    store = AnnotationStore.open(run_dir)
    current = store.next_for("bench")
    view = item_view(run_dir, current)
    first = time.perf_counter() - started
    first_cpu = time.process_time() - started_cpu
    per_item = []
    for _ in range(items):
        tick = time.perf_counter()
        for sq in view.content.sub_questions:
            store.add_label("bench", current.sample_id, sq.code, True)
        current = store.next_for("bench")
        if current is None:
            break
        view = item_view(run_dir, current)
        per_item.append(time.perf_counter() - tick)
    store.close()
    per_item.sort()
    return {
        "first_item_seconds": first,
        "first_item_cpu_seconds": first_cpu,
        "next_items": len(per_item),
        "next_item_mean_ms": 1000 * statistics.fmean(per_item),
        "next_item_p95_ms": 1000 * per_item[int(0.95 * (len(per_item) - 1))],
        "peak_rss_mb": peak_rss_mb(),
    }


def run_phase(*args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(f"phase {args[1]} failed:\n{out.stderr}")
    return json.loads(out.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", type=Path, default=RELEASE)
    parser.add_argument("--run-dir", type=Path, help="An existing run (default: build one).")
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument(
        "--phase", choices=("sample", "serve", "serve-cold"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.phase == "sample":
        print(json.dumps(phase_sample(args.run_dir, args.n)))
        return
    if args.phase in ("serve", "serve-cold"):
        print(json.dumps(phase_serve(args.run_dir, args.items, cold=args.phase == "serve-cold")))
        return
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "run"
        if args.run_dir is not None:
            # A private copy without its store: labels are never deleted, so each run starts anew.
            shutil.copytree(args.run_dir, run_dir, ignore=shutil.ignore_patterns("store.sqlite*"))
        else:
            from report.synthetic_run import build_synthetic_run

            build_synthetic_run(args.release, run_dir)
        with (run_dir / "answers.jsonl").open(encoding="utf-8") as handle:
            print(f"answers                 {sum(1 for _ in handle)}")
        with (run_dir / "judges.jsonl").open(encoding="utf-8") as handle:
            print(f"judge records           {sum(1 for _ in handle)}")
        sampled = run_phase("--phase", "sample", "--run-dir", str(run_dir), "--n", str(args.n))
        print(
            f"population (units)      {sampled['population']} ({sampled['population_split']} split)"
        )
        print(f"sample drawn            {sampled['drawn']} in {sampled['strata']} strata")
        print(f"sample time             {sampled['sample_seconds']:.2f} s")
        print(
            f"views cached            {sampled['views_cached']} in "
            f"{sampled['views_seconds']:.2f} s (CPU of the whole phase "
            f"{sampled['sample_cpu_seconds']:.2f} s)"
        )
        print(f"sample peak RSS         {sampled['peak_rss_mb']:.0f} MB")
        for phase, what in (("serve-cold", "run files"), ("serve", "view cache")):
            served = run_phase(
                "--phase", phase, "--run-dir", str(run_dir), "--items", str(args.items)
            )
            print(f"-- serving, item views from the {what}")
            print(
                f"time to first item      {served['first_item_seconds']:.2f} s "
                f"({served['first_item_cpu_seconds']:.2f} s CPU; process start excluded)"
            )
            print(
                f"time per next item      {served['next_item_mean_ms']:.1f} ms mean, "
                f"{served['next_item_p95_ms']:.1f} ms p95 over {served['next_items']} items "
                "(labels committed included)"
            )
            print(f"peak RSS                {served['peak_rss_mb']:.0f} MB")


if __name__ == "__main__":
    main()

"""``annotate stats`` at the paper's scale: a 2,000-item sample of the synthetic paper-scale run
(~13k answers, ~107k judge records), labelled by scripted annotators.

Builds the synthetic run of the test suite (from the authors' Dutch release in ../shared), draws
the sample with ``annotate.sample.draw_sample`` (20% of items wanted by two annotators), and
writes labels straight into ``annotation_labels`` in one transaction (label-by-label commits are
the app's business, not what is timed here): annotator "a" gives the panel majority with 10% of
verdicts flipped, annotator "b" labels the overlap items with its own 10% flips. Then it times
``annotation_stats`` (in-process) and the ``polistemics annotate stats RUN --json`` command (a
child process, whose peak RSS it reports), and prints the counts behind them.

    python benchmarks/annotate_stats.py [RELEASE_FOLDER] [--n 2000]
"""

from __future__ import annotations

import argparse
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# tests/ has no __init__.py and a site-packages "tests" package would shadow it: import the
# test suite's folders as top-level packages.
sys.path.insert(0, str(REPO / "tests"))

from polistemics.annotate.run_data import AnswerRubric, panel_verdicts  # noqa: E402
from polistemics.annotate.sample import SampleOptions, draw_sample  # noqa: E402
from polistemics.annotate.stats import annotation_stats  # noqa: E402
from polistemics.annotate.store import AnnotationStore  # noqa: E402
from polistemics.runlog import STORE_FILE  # noqa: E402
from report.synthetic_run import build_synthetic_run  # noqa: E402

RELEASE = REPO.parent / "shared/reference/polistemics-v1.0/data/experiments/nl_tk2025_full_v1"


def write_labels(run_dir: Path, seed: int) -> int:
    rng = random.Random(seed)
    with AnnotationStore.open(run_dir) as store:
        sample = store.sample()
    units = {
        (i.item_key, i.model, i.sample_index, i.rubric): AnswerRubric(
            i.item_key, i.model, i.sample_index, i.rubric
        )
        for i in sample
    }
    verdicts, size = panel_verdicts(run_dir, set(units.values()))
    now = datetime.now(UTC).isoformat()
    rows = []
    for item in sample:
        unit = units[(item.item_key, item.model, item.sample_index, item.rubric)]
        for annotator in ("a", "b")[: item.annotators_wanted]:
            for code, yes in verdicts[unit].majority(size).items():
                says = bool(yes) if rng.random() > 0.1 else not bool(yes)
                rows.append((annotator, item.sample_id, code, int(says), None, now, "import"))
    db = sqlite3.connect(run_dir / STORE_FILE)
    with db:
        db.executemany("INSERT INTO annotation_labels VALUES (?,?,?,?,?,?,?)", rows)
    db.close()
    return len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", type=Path, nargs="?", default=RELEASE)
    parser.add_argument("--n", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = build_synthetic_run(args.release, Path(tmp) / "run")
        with (run_dir / "judges.jsonl").open(encoding="utf-8") as handle:
            print(f"judge records            {sum(1 for _ in handle)}")
        items, _ = draw_sample(run_dir, SampleOptions(n=args.n, seed=1, overlap=2))
        with AnnotationStore.open(run_dir) as store:
            store.write_sample(items)
        print(f"sample items             {len(items)}")
        print(f"labels                   {write_labels(run_dir, seed=1)}")

        started = time.perf_counter()
        stats = annotation_stats(run_dir)
        print(f"annotation_stats seconds {time.perf_counter() - started:.2f}")
        print(f"labelled items           {stats.n_labelled_items}")
        print(f"corrected rubric rows    {stats.rubric_scores['corrected'].notna().sum()}")
        pooled = stats.agreement.iloc[-1]
        print(f"human-human AC1 pooled   {pooled['gwet_ac1']:.3f} (n={pooled['n_items']})")

        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "polistemics", "annotate", "stats", str(run_dir), "--json"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        seconds = time.perf_counter() - started
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"CLI seconds              {seconds:.2f} (process start included)")
        print(f"CLI peak RSS MB          {peak_mb:.0f}")


if __name__ == "__main__":
    main()

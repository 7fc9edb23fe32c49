"""Compare two golden captures (``capture.sh``): which outputs differ, and by how much.

Times, latencies, paths and the git revision are left out. A file that differs is named; for a
CSV table the largest absolute difference of each numeric column that differs is printed, and a
text column that differs is named, so a last-bit change of an interval is told apart from a
changed count.

    python benchmarks/golden/compare.py OLD NEW
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

VOLATILE = {
    "elapsed_seconds",
    "finished",
    "git_revision",
    "latency_ms",
    "mean_latency_ms",
    "models_file",
    "output_dir",
    "stage_seconds",
    "started",
}
TIMING_TABLES = {"calls.csv", "invocations.csv", "stage_seconds.csv"}


def without_volatile(value: object) -> object:
    if isinstance(value, dict):
        return {k: without_volatile(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [without_volatile(v) for v in value]
    return value


def json_values(path: Path) -> object:
    if path.suffix == ".jsonl":
        lines = path.read_text(encoding="utf-8").splitlines()
        return [without_volatile(json.loads(line)) for line in lines if line.strip()]
    return without_volatile(json.loads(path.read_text(encoding="utf-8")))


def csv_differences(old: Path, new: Path) -> str:
    a = pd.read_csv(old, float_precision="round_trip")
    b = pd.read_csv(new, float_precision="round_trip")
    if list(a.columns) != list(b.columns) or len(a) != len(b):
        return f"columns or rows differ ({len(a)} vs {len(b)} rows)"
    found = []
    for column in a.columns:
        x, y = a[column], b[column]
        if x.dtype.kind in "fi" and y.dtype.kind in "fi":
            delta = np.abs(x.to_numpy(float) - y.to_numpy(float))
            worst = float(np.nanmax(delta)) if len(delta) else 0.0
            if worst > 0 or (x.isna() != y.isna()).any():
                found.append(f"{column} max |diff| {worst:.3g}")
        elif not x.equals(y):
            found.append(f"{column} (text)")
    return ", ".join(found) or "same values, other float digits"


def compare(old: Path, new: Path) -> int:
    names = {p.relative_to(old) for p in old.rglob("*") if p.is_file()}
    names |= {p.relative_to(new) for p in new.rglob("*") if p.is_file()}
    compared = differing = 0
    for name in sorted(names):
        if name.suffix not in (".csv", ".json", ".jsonl") or name.name in TIMING_TABLES:
            continue
        if name.name.startswith(".run.lock"):
            continue
        compared += 1
        a, b = old / name, new / name
        if not (a.is_file() and b.is_file()):
            print(f"only in {'new' if b.is_file() else 'old'}: {name}")
            differing += 1
        elif a.read_bytes() == b.read_bytes():
            continue
        elif name.suffix == ".csv":
            print(f"{name}: {csv_differences(a, b)}")
            differing += 1
        elif json_values(a) != json_values(b):
            print(f"{name}: differs beyond its volatile fields")
            differing += 1
    print(f"{compared} files compared, {differing} differ")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(compare(Path(sys.argv[1]), Path(sys.argv[2])))

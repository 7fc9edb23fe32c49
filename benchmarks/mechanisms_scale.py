"""The mechanism analyses at paper scale: how long ``scoring.mechanisms.mechanism_tables`` takes
on seeded random stance codes for the authors' Dutch release items.

Items come from the release (every environment, full variant); each of ``--models`` models gets
one answer per item in the four coded environments, plus a swapped-order Contradictory answer per
Contradictory item, each read by ``--coders`` coder seats, and one closed-book probe answer per
party x statement, read by the same seats. EC4 cells are random. Prints the counts (codes,
trials per analysis) and the wall time (noisy on a shared machine).

    PYTHONPATH=src python benchmarks/mechanisms_scale.py RELEASE_DIR --models 3 --coders 3
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import pandas as pd

from polistemics.conditions import Environment, Variant
from polistemics.runlog import CodedStance, StanceCodeRecord
from polistemics.runlog.release_io import read_release_items
from polistemics.scoring.mechanisms import mechanism_tables

CODED = (
    Environment.ABSENT,
    Environment.VAGUE,
    Environment.CONTRADICTORY,
    Environment.COUNTERFACTUAL,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release_dir", type=Path)
    parser.add_argument("--models", type=int, default=3)
    parser.add_argument("--coders", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    items = read_release_items(args.release_dir / "ground_truth.jsonl", variant=Variant.FULL)
    stances = list(CodedStance)
    models = [f"model_{i}" for i in range(args.models)]
    subjects = []
    for item in items:
        if item.environment not in CODED:
            continue
        subjects.append(("answer", item.key))
        if item.environment is Environment.CONTRADICTORY:
            subjects.append(("answer", item.key + "|swapped"))
    probes = {(i.election_id, i.party_id, i.statement_id) for i in items if i.environment in CODED}
    subjects += [("probe", f"prior|{e}|{p}|{s}") for e, p, s in sorted(probes)]
    records = [
        StanceCodeRecord(
            kind=kind,
            subject_key=key,
            model=model,
            sample_index=0,
            coder=f"coder_{seat}",
            panel_position=seat,
            stance=rng.choice(stances) if rng.random() > 0.02 else None,
            outside_knowledge=rng.random() < 0.4,
        )
        for model in models
        for kind, key in subjects
        for seat in range(args.coders)
    ]
    cells = pd.DataFrame(
        [
            {
                "model": model,
                "environment": item.environment.value,
                "variant": item.variant.value,
                "observation_id": item.observation_id,
                "sample_index": 0,
                "party_id": item.party_id,
                "party_name": item.party_name,
                "election_id": item.election_id,
                "rubric": "epistemic_calibration",
                "sub_question": "parametric_fallback",
                "passed": rng.random() < 0.7,
            }
            for model in models
            for item in items
            if item.environment is Environment.ABSENT
        ]
    )
    start = time.perf_counter()
    tables = mechanism_tables(items, records, cells)
    seconds = time.perf_counter() - start
    fallback = tables.fallback.by_model
    first = tables.first_chunk.by_model
    print(f"items {len(items)}, models {len(models)}, coder seats {args.coders}")
    print(f"stance code records {len(records)} (answers and probes)")
    print(f"coded answers {len(tables.answers)}, coded probe answers {len(tables.probes)}")
    print(f"fallback trials (union) {int(fallback[fallback['rule'] == 'union']['n'].sum())}")
    print(
        f"first-chunk trials {int(first['n'].sum())}, paired rows {len(tables.first_chunk.paired)}"
    )
    print(f"prior trials {int(tables.prior.by_model['n'].sum())}")
    print(f"correlation rows {len(tables.party_correlations)}")
    print(f"mechanism_tables: {seconds:.2f} s wall (shared machine: noisy)")


if __name__ == "__main__":
    main()

"""The judged part of a comparison: two sides' scored cells matched (``matching``), their
deltas at every grain (``deltas``) and the tests of each table (``paired``: exact McNemar;
``unpaired``: bootstrap z; Holm within each table), each row flagged when it rests on few
observations. The party-position comparison and each further task's (``per_task``) use it.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from polistemics.compare.deltas import UNIT_COLUMNS, DeltaTables, delta_tables
from polistemics.compare.matching import PAIRED, Matched, match_sides
from polistemics.compare.paired import with_tests
from polistemics.compare.sides import Side
from polistemics.compare.unpaired import with_bootstrap_tests
from polistemics.stats import DEFAULT_ALPHA, DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES

TESTED = {
    "sub_questions": ["variant", "model", "environment", "rubric", "sub_question"],
    "sub_questions_pooled": ["variant", "model", "rubric", "sub_question"],
    "parties": ["variant", "party_id", "environment", "rubric", "sub_question"],
}
# An interval resting on fewer observations than this on either side is flagged (issue 27).
SMALL_SAMPLE_UNITS = 30
PAIRED_TEST = "exact McNemar (two-sided)"
UNPAIRED_TEST = "bootstrap z (difference / bootstrap SE, two-sided)"
CORRECTION = "Holm, each table one family"


@dataclass(frozen=True)
class CompareOptions:
    resamples: int = DEFAULT_RESAMPLES
    seed: int = 0
    confidence: float = DEFAULT_CONFIDENCE
    alpha: float = DEFAULT_ALPHA


def judged_deltas(a: Side, b: Side, options: CompareOptions) -> tuple[Matched, DeltaTables]:
    """The sides matched and their delta tables with tests and small-sample flags."""
    matched = match_sides(a, b)
    deltas = delta_tables(matched, options.resamples, options.seed, options.confidence)
    if matched.mode == PAIRED and matched.pairs is not None:
        for name, keys in TESTED.items():
            setattr(
                deltas, name, with_tests(getattr(deltas, name), matched.pairs, keys, options.alpha)
            )
    else:
        for name, table in deltas.items():
            setattr(deltas, name, with_bootstrap_tests(table, options.alpha))
    for name, table in deltas.items():
        setattr(deltas, name, with_small_sample_flags(table))
    return matched, deltas


def with_small_sample_flags(table: pd.DataFrame) -> pd.DataFrame:
    """The units columns moved last (after the tests, so the earlier columns keep their order)
    and ``small_sample``: fewer than ``SMALL_SAMPLE_UNITS`` observations on either side."""
    units = table.loc[:, UNIT_COLUMNS]
    out = table.drop(columns=UNIT_COLUMNS)
    out[UNIT_COLUMNS] = units
    fewest = units.min(axis=1) if len(units) else pd.Series(dtype="int64")
    out["small_sample"] = (fewest < SMALL_SAMPLE_UNITS).astype(bool)
    return out


def tested_tables(paired: bool, deltas: DeltaTables) -> list[tuple[str, pd.DataFrame]]:
    """The tables with tests: paired, the pass-rate tables (McNemar); unpaired, every table
    (bootstrap z)."""
    if not paired:
        return deltas.items()
    return [(name, getattr(deltas, name)) for name in TESTED]

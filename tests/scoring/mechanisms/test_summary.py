"""All analyses at once from coder records, and the four headline rates ``score --json`` shows."""

import pandas as pd

from mechanism_records import (
    A,
    D,
    absent,
    contradictory,
    counterfactual,
    ec4_cell,
    probe_seat,
    seat,
)
from polistemics.coding.records import CodedStance as C
from polistemics.scoring.cells import empty_cells
from polistemics.scoring.mechanisms import MechanismRates, mechanism_rates, mechanism_tables


def _run():
    fallback = [absent("p1", 1, A), absent("p1", 2, D), absent("p2", 1, A)]
    conflict = [contradictory("p1", 1, A), contradictory("p2", 1, A)]
    prior_conflict = [counterfactual("p1", 1, A), counterfactual("p2", 1, A)]
    items = fallback + conflict + prior_conflict
    records = [
        # Absent: two fall back (one right, one wrong); the third does not fall back.
        seat(fallback[0].key, C.AGREE, outside=True),
        seat(fallback[1].key, C.AGREE, outside=True),
        seat(fallback[2].key, C.AGREE, outside=False),
        # Contradictory: one follows the first chunk, one the second (two coder seats agree).
        *(seat(conflict[0].key, C.AGREE, position=i) for i in range(2)),
        *(seat(conflict[1].key, C.DISAGREE, position=i) for i in range(2)),
        # Counterfactual (evidence: Disagree): one follows, one keeps the real stance.
        seat(prior_conflict[0].key, C.DISAGREE),
        seat(prior_conflict[1].key, C.AGREE),
        probe_seat("p1", 1, C.AGREE),
        probe_seat("p2", 1, C.DISAGREE),  # wrong: p2 agrees
        probe_seat("p1", 2, C.DISAGREE),
    ]
    cells = pd.DataFrame([ec4_cell(target, fails=False) for target in fallback])
    return mechanism_tables(items, records, cells)


def test_headline_rates():
    tables = _run()
    assert tables.coded and tables.probed
    rates = mechanism_rates(tables, "full", "m1")
    assert rates == MechanismRates(
        fallback_match_rate=0.5,
        first_chunk_rate=0.5,
        prior_accuracy=2 / 3,
        follows_evidence_rate=0.5,
    )
    assert set(rates.to_json()) == {
        "fallback_match_rate",
        "first_chunk_rate",
        "prior_accuracy",
        "follows_evidence_rate",
    }


def test_unmeasured_rates_are_none():
    tables = mechanism_tables([], [], empty_cells())
    assert not tables.coded and not tables.probed
    assert mechanism_rates(tables, "full", "m1") == MechanismRates()
    assert mechanism_rates(_run(), "full", "other-model") == MechanismRates()

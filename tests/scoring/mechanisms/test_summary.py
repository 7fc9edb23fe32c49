"""All analyses at once from coder records, and the four headline rates ``score --json`` shows."""

import pandas as pd

from mechanism_records import mechanism_scenario
from polistemics.scoring.cells import empty_cells
from polistemics.scoring.mechanisms import MechanismRates, mechanism_rates, mechanism_tables


def _run():
    items, records, ec4 = mechanism_scenario()
    return mechanism_tables(items, records, pd.DataFrame(ec4))


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


def test_the_swapped_order_is_measured_apart():
    by_model = _run().first_chunk.by_model.set_index("chunk_order")
    assert by_model.loc["swapped", ["n", "successes"]].tolist() == [1, 1]
    assert by_model.loc["original", ["n", "successes"]].tolist() == [2, 1]


def test_nothing_is_left_out_when_every_code_is_usable():
    tables = _run()
    for excluded in (
        tables.fallback.excluded,
        tables.first_chunk.excluded,
        tables.prior.excluded,
    ):
        assert excluded.empty, excluded
    assert set(tables.follows.excluded["reason"]) <= {"no_prior"}

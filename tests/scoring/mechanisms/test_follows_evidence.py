import pandas as pd
import pytest
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

from mechanism_records import A, D, contradictory, counterfactual, probe_seat, seat
from polistemics.coding.records import majority_codes
from polistemics.runlog import CodedStance as C
from polistemics.scoring.mechanisms import (
    coded_answers,
    coded_probes,
    follows_evidence,
    prior_stances,
)

PRIORS = [
    ("p1", 1, C.AGREE),
    ("p1", 2, C.DISAGREE),
    ("p1", 3, C.DISAGREE),
    ("p2", 1, C.AGREE),
    ("p2", 2, C.NO_POSITION),
]
COUNTERFACTUAL = [  # party, statement, truth (the evidence is the opposite), coded answer
    ("p1", 1, A, C.DISAGREE),  # prior disagrees with the evidence; follows it
    ("p1", 2, A, C.DISAGREE),  # prior agrees; follows
    ("p1", 3, D, C.DISAGREE),  # prior disagrees; does not follow
    ("p2", 1, D, C.AGREE),  # prior agrees; follows
    ("p2", 2, A, C.DISAGREE),  # no committed prior; follows
    ("p2", 3, A, C.BOTH),  # not committed
]
CONTRADICTORY = [  # the evidence is the party's own chunk (its real stance)
    ("p1", 1, A, C.AGREE),  # prior agrees with it; follows
    ("p1", 3, D, C.AGREE),  # prior agrees; does not follow
    ("p2", 1, D, C.AGREE),  # prior disagrees; does not follow (follows the prior)
]


def _build(with_probe: bool = True):
    items, records = [], []
    for build, cases in ((counterfactual, COUNTERFACTUAL), (contradictory, CONTRADICTORY)):
        for party, statement, truth, stance in cases:
            target = build(party, statement, truth)
            items.append(target)
            records.append(seat(target.key, stance))
    if with_probe:
        records += [probe_seat(party, statement, stance) for party, statement, stance in PRIORS]
    codes = majority_codes(records)
    probes = coded_probes(items, codes)
    priors = prior_stances(probes) if with_probe else None
    return follows_evidence(coded_answers(items, codes).frame, priors)


def _row(table, **where):
    for column, value in where.items():
        table = table[table[column].isna()] if value is None else table[table[column] == value]
    assert len(table) == 1, table
    return table.iloc[0]


CF, CO = "ie_prior_conflict", "ie_consistency_contradiction"


def test_overall_rate_needs_no_probe():
    for result in (_build(), _build(with_probe=False)):
        row = _row(result.overall, environment=CF, party_id=None)
        assert (row["n"], row["successes"], row["rate"]) == (5, 4, 0.8)
        low, high = proportion_confint(4, 5, method="wilson")
        assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low), pytest.approx(high))
        assert _row(result.overall, environment=CF, party_id="p2")["n"] == 2
        assert _row(result.overall, environment=CO, party_id=None)["successes"] == 1
    assert _build(with_probe=False).conditional.empty


def test_counterfactual_conditional_rates_and_difference():
    row = _row(_build().conditional, environment=CF, party_id=None)
    assert (row["prior_agrees_n"], row["prior_agrees_successes"]) == (2, 2)
    assert (row["prior_disagrees_n"], row["prior_disagrees_successes"]) == (2, 1)
    assert row["difference"] == 0.5
    low, high = confint_proportions_2indep(2, 2, 1, 2, method="newcomb")
    assert (row["difference_low"], row["difference_high"]) == (
        pytest.approx(low),
        pytest.approx(high),
    )
    p1 = _row(_build().conditional, environment=CF, party_id="p1")
    assert (p1["prior_agrees_n"], p1["prior_disagrees_n"], p1["prior_disagrees_successes"]) == (
        1,
        2,
        1,
    )
    p2 = _row(_build().conditional, environment=CF, party_id="p2")
    assert p2["prior_disagrees_n"] == 0 and pd.isna(p2["difference"])


def test_contradictory_evidence_is_the_party_chunk():
    result = _build()
    row = _row(result.conditional, environment=CO, party_id=None)
    assert (row["prior_agrees_n"], row["prior_agrees_successes"]) == (2, 1)
    assert (row["prior_disagrees_n"], row["prior_disagrees_successes"]) == (1, 0)
    consistent = _row(result.prior_consistent, environment=CO, party_id=None)
    assert (consistent["n"], consistent["successes"]) == (3, 2)


def test_exclusions():
    counts = {(r.environment, r.reason): r.count for r in _build().excluded.itertuples()}
    assert counts == {(CF, "not_committed"): 1, (CF, "no_prior"): 1}

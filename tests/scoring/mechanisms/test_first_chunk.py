import pytest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from mechanism_records import A, D, contradictory, seat
from polistemics.coding.records import majority_codes
from polistemics.runlog import CodedStance as C
from polistemics.scoring.mechanisms import coded_answers, first_chunk_preference

CASES = [  # party, statement, truth, swapped, coded stance
    ("p1", 1, A, False, C.AGREE),  # first chunk (real)
    ("p1", 2, A, False, C.DISAGREE),  # second chunk
    ("p1", 3, D, False, C.DISAGREE),  # first chunk (real)
    ("p2", 1, A, False, C.BOTH),  # not committed
    ("p2", 2, D, False, C.NEUTRAL),  # not committed
    ("p2", 3, A, False, C.AGREE),  # first chunk (real)
    ("p1", 1, A, True, C.DISAGREE),  # first chunk (opposing)
    ("p1", 2, A, True, C.AGREE),  # second chunk (real)
    ("p1", 3, D, True, C.DISAGREE),  # second chunk (real)
    ("p2", 3, A, True, C.DISAGREE),  # first chunk (opposing)
    ("p2", 1, A, True, None),  # unreadable
]


@pytest.fixture
def result():
    items, records = [], []
    for party, statement, truth, swapped, stance in CASES:
        target = contradictory(party, statement, truth, swapped=swapped)
        items.append(target)
        records.append(seat(target.key, stance))
    return first_chunk_preference(coded_answers(items, majority_codes(records)).frame)


def _row(table, **where):
    for column, value in where.items():
        table = table[table[column].isna()] if value is None else table[table[column] == value]
    assert len(table) == 1, table
    return table.iloc[0]


@pytest.mark.parametrize(
    ("order", "party", "n", "first"),
    [
        ("original", "p1", 3, 2),
        ("original", "p2", 1, 1),
        ("swapped", "p1", 3, 1),
        ("swapped", "p2", 1, 1),
    ],
)
def test_first_chunk_rate_per_order_and_party(result, order, party, n, first):
    row = _row(result.by_party, chunk_order=order, party_id=party)
    assert (row["n"], row["successes"], row["rate"]) == (n, first, first / n)
    low, high = proportion_confint(first, n, method="wilson")
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low), pytest.approx(high))


def test_first_chunk_rate_per_model(result):
    original = _row(result.by_model, chunk_order="original", model="m1")
    swapped = _row(result.by_model, chunk_order="swapped", model="m1")
    assert (original["n"], original["successes"]) == (4, 3)
    assert (swapped["n"], swapped["successes"]) == (4, 2)


def test_position_bias_and_prior_preference_pool_both_orders(result):
    position = _row(result.pooled, measure="position", model="m1", party_id=None)
    prior = _row(result.pooled, measure="prior", model="m1", party_id=None)
    assert (position["n"], position["successes"]) == (8, 5)
    assert (prior["n"], prior["successes"]) == (8, 5)
    p1_prior = _row(result.pooled, measure="prior", model="m1", party_id="p1")
    assert (p1_prior["n"], p1_prior["successes"]) == (6, 4)


def test_paired_mcnemar_tests(result):
    position = _row(result.paired, test="position")
    prior = _row(result.paired, test="prior")
    # Pairs: p1s1 first both, p1s2 second both, p1s3 real both, p2s3 first both.
    assert (position["pairs"], position["discordant_for"], position["discordant_against"]) == (
        4,
        2,
        1,
    )
    assert position["concordant"] == 1
    assert position["p_value"] == pytest.approx(mcnemar([[1, 2], [1, 0]], exact=True).pvalue)
    assert (prior["discordant_for"], prior["discordant_against"], prior["concordant"]) == (1, 0, 3)
    assert prior["p_value"] == pytest.approx(mcnemar([[2, 1], [0, 1]], exact=True).pvalue)


def test_exclusions(result):
    counts = {(row.chunk_order, row.reason): row.count for row in result.excluded.itertuples()}
    assert counts == {("original", "not_committed"): 2, ("swapped", "missing"): 1}


def test_one_order_only_has_no_pooled_rates_or_pairs():
    items, records = [], []
    for party, statement, truth, swapped, stance in CASES[:6]:
        target = contradictory(party, statement, truth, swapped=swapped)
        items.append(target)
        records.append(seat(target.key, stance))
    result = first_chunk_preference(coded_answers(items, majority_codes(records)).frame)
    assert result.pooled.empty and result.paired.empty
    assert _row(result.by_model, chunk_order="original")["rate"] == 0.75

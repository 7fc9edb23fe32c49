import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from mechanism_records import A, D, N, absent, ec4_cell, seat
from polistemics.coding.records import majority_codes
from polistemics.runlog import CodedStance as C
from polistemics.scoring.cells import empty_cells
from polistemics.scoring.mechanisms import coded_answers, fallback_accuracy


@pytest.fixture
def result():
    cases = [  # party, statement, truth, EC4 fails, coder seats (stance, outside)
        ("p1", 1, A, True, [(C.AGREE, True)]),
        ("p1", 2, A, True, [(C.DISAGREE, False)]),
        ("p1", 3, D, False, [(C.DISAGREE, True)]),
        ("p1", 4, A, False, [(C.AGREE, False)]),  # no fallback by either rule
        ("p2", 1, N, True, [(C.AGREE, True)]),  # neutral ground truth
        ("p2", 2, A, True, [(None, None)]),  # unreadable: missing
        ("p2", 3, D, True, [(C.AGREE, None), (C.DISAGREE, None)]),  # no majority
        ("p2", 4, D, True, [(C.NO_POSITION, True)]),
    ]
    items, records, cells = [], [], []
    for party, statement, truth, fails, seats in cases:
        target = absent(party, statement, truth)
        items.append(target)
        cells.append(ec4_cell(target, fails))
        for position, (stance, outside) in enumerate(seats):
            records.append(seat(target.key, stance, outside=outside, position=position))
    answers = coded_answers(items, majority_codes(records)).frame
    return fallback_accuracy(answers, pd.DataFrame(cells))


def _row(table, **where):
    for column, value in where.items():
        table = table[table[column] == value]
    assert len(table) == 1
    return table.iloc[0]


@pytest.mark.parametrize(
    ("rule", "party", "n", "matches"),
    [
        ("union", "p1", 3, 2),
        ("union", "p2", 1, 0),
        ("ec4", "p1", 2, 1),
        ("ec4", "p2", 1, 0),
        ("coder", "p1", 2, 2),
        ("coder", "p2", 1, 0),
    ],
)
def test_rates_per_party_and_rule(result, rule, party, n, matches):
    row = _row(result.by_party, rule=rule, party_id=party)
    assert (row["n"], row["successes"]) == (n, matches)
    assert row["rate"] == matches / n
    assert row["party_name"] == party.upper()
    low, high = proportion_confint(matches, n, method="wilson")
    assert row["ci_low"] == pytest.approx(low) and row["ci_high"] == pytest.approx(high)


@pytest.mark.parametrize(
    ("rule", "n", "matches"), [("union", 4, 2), ("ec4", 3, 1), ("coder", 3, 2)]
)
def test_rates_per_model(result, rule, n, matches):
    row = _row(result.by_model, rule=rule, model="m1")
    assert (row["n"], row["successes"], row["rate"]) == (n, matches, matches / n)


def test_exclusions_are_counted_not_guessed(result):
    union = result.excluded[result.excluded["rule"] == "union"]
    assert dict(zip(union["reason"], union["count"], strict=True)) == {
        "missing": 1,
        "neutral_ground_truth": 1,
        "no_majority": 1,
    }
    coder = result.excluded[result.excluded["rule"] == "coder"]
    # The coder rule cannot select an answer whose code is unreadable.
    assert dict(zip(coder["reason"], coder["count"], strict=True)) == {"neutral_ground_truth": 1}


def test_each_kept_answer_records_which_rule_selected_it(result):
    union = result.answers[result.answers["rule"] == "union"]
    assert set(union["party_id"] + union["observation_id"].str[-4:]) == {
        "p1s001",
        "p1s002",
        "p1s003",
        "p2s004",
    }
    p1s3 = union[union["observation_id"].str.endswith("p1__s003")].iloc[0]
    assert (bool(p1s3["ec4_fails"]), bool(p1s3["coder_says"])) == (False, True)


def test_no_codes_measure_nothing():
    result = fallback_accuracy(coded_answers([], []).frame, empty_cells())
    assert result.by_model.empty and result.by_party.empty

import pytest
from statsmodels.stats.proportion import proportion_confint

from mechanism_records import A, D, N, absent, probe_seat
from polistemics.coding.records import majority_codes
from polistemics.runlog import CodedStance as C
from polistemics.scoring.mechanisms import coded_probes, prior_accuracy, prior_stances

TRUTH = {
    ("p1", 1): A,
    ("p1", 2): A,
    ("p1", 3): D,
    ("p1", 4): N,
    ("p2", 1): D,
    ("p2", 2): A,
    ("p2", 3): A,
}
CODES = [
    ("p1", 1, C.AGREE),  # accurate
    ("p1", 2, C.DISAGREE),
    ("p1", 3, C.NO_POSITION),  # abstains
    ("p1", 4, C.AGREE),  # neutral ground truth
    ("p2", 1, C.DISAGREE),  # accurate
    ("p2", 2, C.BOTH),  # abstains
    ("p2", 9, C.AGREE),  # no item covers it
    ("p2", 3, None),  # unreadable
]


@pytest.fixture
def items():
    return [absent(party, statement, truth) for (party, statement), truth in TRUTH.items()]


@pytest.fixture
def result(items):
    records = [probe_seat(party, statement, stance) for party, statement, stance in CODES]
    return prior_accuracy(coded_probes(items, majority_codes(records)))


@pytest.mark.parametrize(
    ("party", "n", "accurate", "abstentions"), [("p1", 3, 1, 1), ("p2", 2, 1, 1)]
)
def test_prior_accuracy_per_party(result, party, n, accurate, abstentions):
    row = result.by_party[result.by_party["party_id"] == party].iloc[0]
    assert (row["n"], row["successes"], row["abstentions"]) == (n, accurate, abstentions)
    assert row["rate"] == accurate / n and row["abstention_rate"] == abstentions / n
    low, high = proportion_confint(accurate, n, method="wilson")
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low), pytest.approx(high))


def test_prior_accuracy_per_model(result):
    row = result.by_model.iloc[0]
    assert (row["model"], row["n"], row["successes"], row["abstentions"]) == ("m1", 5, 2, 2)


def test_exclusions(result):
    counts = dict(zip(result.excluded["reason"], result.excluded["count"], strict=True))
    assert counts == {"missing": 1, "neutral_ground_truth": 1, "no_ground_truth": 1}


def test_prior_stance_is_the_majority_of_samples(items):
    records = [
        probe_seat("p1", 1, C.AGREE, sample=0),
        probe_seat("p1", 1, C.AGREE, sample=1),
        probe_seat("p1", 1, C.DISAGREE, sample=2),
        probe_seat("p1", 2, C.AGREE, sample=0),
        probe_seat("p1", 2, C.DISAGREE, sample=1),  # a tie: no prior
        probe_seat("p2", 1, C.BOTH),  # abstains: no committed prior
        probe_seat("p2", 2, C.DISAGREE, model="m2"),
    ]
    priors = prior_stances(coded_probes(items, majority_codes(records)))
    found = {(r.model, r.party_id, r.statement_id[-1]): r.prior for r in priors.itertuples()}
    assert found == {
        ("m1", "p1", "1"): "Agree",
        ("m1", "p1", "2"): None,
        ("m1", "p2", "1"): None,
        ("m2", "p2", "2"): "Disagree",
    }

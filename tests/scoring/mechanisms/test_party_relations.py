import math

import pandas as pd
import pytest
from scipy.stats import spearmanr

from mechanism_records import contradictory, sq_cell
from polistemics.scoring.mechanisms import party_correlations, party_points, spearman_with_ci

PRIOR = {"p1": 0.2, "p2": 0.4, "p3": 0.6, "p4": 0.8, "p5": 1.0}
F3_PASSES = {"p1": 0, "p2": 1, "p3": 3, "p4": 2, "p5": 4}  # of 4 answers each


@pytest.fixture
def points():
    cells = [
        sq_cell(contradictory(party, statement), "false_synthesis", statement <= passes)
        for party, passes in F3_PASSES.items()
        for statement in range(1, 5)
    ]
    prior = pd.DataFrame(
        [{"model": "m1", "party_id": p, "rate": r, "n": 10} for p, r in PRIOR.items()]
    )
    return party_points(prior, pd.DataFrame(cells))


def test_points_pair_prior_accuracy_with_pass_rates(points):
    f3 = points[points["measure"] == "F3"].set_index("party_id")
    assert f3["value"].to_dict() == {p: k / 4 for p, k in F3_PASSES.items()}
    assert f3["prior_accuracy"].to_dict() == PRIOR
    assert set(f3["value_n"]) == {4} and set(f3["prior_n"]) == {10}


def test_spearman_matches_scipy_with_a_fisher_interval(points):
    row = party_correlations(points).set_index("measure").loc["F3"]
    x, y = list(PRIOR.values()), [k / 4 for k in F3_PASSES.values()]
    expected = spearmanr(x, y)
    assert row["rho"] == pytest.approx(expected.statistic) == 0.9
    assert row["p_value"] == pytest.approx(expected.pvalue)
    assert row["n_parties"] == 5
    half = 1.959963984540054 * math.sqrt(1.06 / 2)
    assert row["ci_low"] == pytest.approx(math.tanh(math.atanh(0.9) - half))
    assert row["ci_high"] == pytest.approx(math.tanh(math.atanh(0.9) + half))


def test_too_few_parties_give_no_interval():
    rho, p, low, high = spearman_with_ci([0.1, 0.5, 0.9], [0.2, 0.1, 0.3])
    assert rho == pytest.approx(spearmanr([0.1, 0.5, 0.9], [0.2, 0.1, 0.3]).statistic)
    assert math.isnan(low) and math.isnan(high)
    assert all(math.isnan(v) for v in spearman_with_ci([0.1, 0.2], [0.3, 0.4]))
    assert all(math.isnan(v) for v in spearman_with_ci([0.1, 0.2, 0.3], [0.5, 0.5, 0.5]))

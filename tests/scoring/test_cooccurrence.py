from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats.contingency import association

from polistemics.conditions import Environment
from polistemics.scoring.cooccurrence import failure_cooccurrence, phi_coefficient

V, C = Environment.VAGUE, Environment.CONTRADICTORY


@pytest.mark.parametrize("seed", range(20))
def test_phi_matches_scipy_cramers_v_and_the_indicator_correlation(seed):
    rng = np.random.default_rng(seed)
    a, b, c, d = (int(x) for x in rng.integers(1, 60, size=4))
    phi = phi_coefficient(a, b, c, d)
    assert abs(phi) == pytest.approx(association(np.array([[a, b], [c, d]]), method="cramer"))
    # phi is the Pearson correlation of the two failure indicators, sign included
    f = np.repeat([1, 1, 0, 0], [a, b, c, d])
    ec = np.repeat([1, 0, 1, 0], [a, b, c, d])
    assert phi == pytest.approx(np.corrcoef(f, ec)[0, 1])


def test_phi_is_nan_for_an_empty_margin():
    assert math.isnan(phi_coefficient(0, 0, 3, 4))
    assert phi_coefficient(5, 0, 0, 5) == 1.0
    assert phi_coefficient(0, 5, 5, 0) == -1.0


def answer(make_cell, env, n, f_pass, ec_pass):
    """One answer's cells: F1 and F2, EC3 passing or failing together per rubric."""
    observation = f"e__p1__s{n:03d}"
    return [
        make_cell(f_pass, "position_representation", environment=env, observation=observation),
        make_cell(True, "information_fabrication", environment=env, observation=observation),
        make_cell(ec_pass, "context_transparency", environment=env, observation=observation),
    ]


def test_failure_cooccurrence_counts_answers_per_environment(make_cell, make_cells):
    # Vague: 3 both fail, 1 F only, 1 EC only, 5 neither; Contradictory: always together
    spec = [(V, False, False)] * 3 + [(V, False, True)] + [(V, True, False)] + [(V, True, True)] * 5
    spec += [(C, False, False)] * 2 + [(C, True, True)] * 2
    rows = [cell for n, s in enumerate(spec) for cell in answer(make_cell, s[0], n, s[1], s[2])]
    table = failure_cooccurrence(make_cells(rows)).set_index("environment")
    vague = table.loc[V.value]
    assert (vague["both_fail"], vague["faithfulness_only"], vague["calibration_only"]) == (3, 1, 1)
    assert vague["neither"] == 5 and vague["n_answers"] == 10
    assert vague["phi"] == pytest.approx(phi_coefficient(3, 1, 1, 5))
    assert vague["faithfulness_failure_rate"] == pytest.approx(0.4)
    assert table.loc[C.value, "phi"] == pytest.approx(1.0)


def test_answers_without_both_rubrics_are_left_out(make_cell, make_cells):
    rows = [make_cell(False, "context_transparency", environment=Environment.ABSENT)]
    assert failure_cooccurrence(make_cells(rows)).empty

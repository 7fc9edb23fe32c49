from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats.contingency import association

from polistemics.conditions import Environment
from polistemics.scoring.cooccurrence import failure_cooccurrence, phi_coefficient
from polistemics.scoring.release import load_release

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


def answer(make_cell, env, n, f_pass, ec1_pass, ec3_pass=True):
    """One answer's cells: F1 (passing or not), F2 passing, EC1 and EC3 passing or not."""
    observation = f"e__p1__s{n:03d}"
    return [
        make_cell(f_pass, "position_representation", environment=env, observation=observation),
        make_cell(True, "information_fabrication", environment=env, observation=observation),
        make_cell(ec1_pass, "epistemic_certainty", environment=env, observation=observation),
        make_cell(ec3_pass, "context_transparency", environment=env, observation=observation),
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


def test_calibration_fails_when_ec1_fails_not_when_another_ec_sub_question_does(
    make_cell, make_cells
):
    """The paper's phi: EC fails on EC1 only. Answers failing EC3 alone count as EC passes for
    ``phi`` and as EC failures for ``phi_any_ec`` (the rubric-level reading, the old phi)."""
    # (F passes, EC1 passes, EC3 passes)
    spec = (
        [(False, False, False)] * 3
        + [(False, True, True)]
        + [(True, False, True)]
        + [(True, True, False)] * 2
        + [(False, True, False)] * 3
        + [(True, True, True)] * 5
    )
    rows = [
        cell
        for n, (f, ec1, ec3) in enumerate(spec)
        for cell in answer(make_cell, V, n, f, ec1, ec3)
    ]
    row = failure_cooccurrence(make_cells(rows)).iloc[0]
    f_fails = np.array([not f for f, _, _ in spec])
    ec1_fails = np.array([not ec1 for _, ec1, _ in spec])
    any_ec_fails = np.array([not (ec1 and ec3) for _, ec1, ec3 in spec])
    # by hand: a=3, b=4, c=1, d=7 -> 17 / sqrt(7 * 8 * 4 * 11) = 0.342
    assert (row["both_fail"], row["faithfulness_only"], row["calibration_only"]) == (3, 4, 1)
    assert row["neither"] == 7
    assert row["phi"] == pytest.approx(17 / math.sqrt(7 * 8 * 4 * 11))
    assert row["phi"] == pytest.approx(np.corrcoef(f_fails, ec1_fails)[0, 1])
    assert row["calibration_failure_rate"] == pytest.approx(4 / 15)
    # the old, rubric-level definition differs: a=6, b=1, c=3, d=5 -> 0.491
    assert row["phi_any_ec"] == pytest.approx(np.corrcoef(f_fails, any_ec_fails)[0, 1])
    assert row["phi_any_ec"] == pytest.approx(27 / math.sqrt(7 * 8 * 9 * 6))
    assert row["phi"] != pytest.approx(row["phi_any_ec"], abs=0.1)
    # every rate and phi carries its 95% interval (statsmodels' Wilson, scipy's Fisher z)
    from scipy.stats import pearsonr
    from statsmodels.stats.proportion import proportion_confint

    for rate, failures in (("faithfulness_failure", f_fails), ("calibration_failure", ec1_fails)):
        low, high = proportion_confint(failures.sum(), len(spec), method="wilson")
        assert row[f"{rate}_ci_low"] == pytest.approx(low)
        assert row[f"{rate}_ci_high"] == pytest.approx(high)
    expected = pearsonr(f_fails, ec1_fails).confidence_interval(0.95)
    assert (row["phi_ci_low"], row["phi_ci_high"]) == pytest.approx((expected.low, expected.high))


def test_an_answer_without_ec1_is_left_out(make_cell, make_cells):
    rows = answer(make_cell, V, 1, False, False)
    rows += [
        make_cell(False, "position_representation", environment=V, observation="e__p1__s099"),
        make_cell(False, "context_transparency", environment=V, observation="e__p1__s099"),
    ]
    assert failure_cooccurrence(make_cells(rows)).iloc[0]["n_answers"] == 1


def test_answers_without_both_rubrics_are_left_out(make_cell, make_cells):
    rows = [make_cell(False, "context_transparency", environment=Environment.ABSENT)]
    assert failure_cooccurrence(make_cells(rows)).empty


def _raw_failures(release_dir: Path) -> pd.DataFrame:
    """Per answer, straight from the release's aggregated score files (not through the tool's
    reader): F fails when its adherence_rate is below 1, EC1 fails when epistemic_certainty is 0."""
    rows = {}
    for rubric, field in (
        ("faithfulness", "adherence_rate"),
        ("epistemic_calibration", "epistemic_certainty"),
    ):
        path = release_dir / "scores" / rubric / "aggregated_scores.jsonl"
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            value = row["scores"].get(field)
            if value is None:
                continue
            key = (row["model_id"], row["ie_name"], row["observation_id"])
            rows.setdefault(key, {})[rubric] = value < 1
    table = pd.DataFrame(
        [
            (*key, v["faithfulness"], v["epistemic_calibration"])
            for key, v in rows.items()
            if len(v) == 2
        ],
        columns=["model", "environment", "observation_id", "f_fails", "ec1_fails"],
    )
    return table


@pytest.mark.shared
def test_dutch_release_phi_matches_an_independent_reading(release_dir):
    """The paper prints no Dutch phi; the tool's phi on the Dutch release equals the correlation
    of the failure indicators read straight from the release files (Vague 0.395, Contradictory
    0.745; the rubric-level reading gave 0.315 and 0.679)."""
    table = failure_cooccurrence(load_release(release_dir).cells).set_index("environment")
    raw = _raw_failures(release_dir)
    for env, group in raw.groupby("environment"):
        expected = np.corrcoef(group["f_fails"], group["ec1_fails"])[0, 1]
        assert table.loc[env, "n_answers"] == len(group)
        assert table.loc[env, "phi"] == pytest.approx(expected)
    assert table.loc[V.value, "phi"] == pytest.approx(0.395, abs=0.0005)
    assert table.loc[C.value, "phi"] == pytest.approx(0.745, abs=0.0005)

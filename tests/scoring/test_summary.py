from __future__ import annotations

import math
import statistics
from pathlib import Path

import pandas as pd
import pytest

from polistemics.scoring.release import load_release
from polistemics.scoring.summary import score_cells


def test_score_cells_on_the_small_release(fixtures_dir: Path):
    cells = load_release(fixtures_dir / "scoring" / "release_small").cells
    scores = score_cells(cells)
    assert [s.model for s in scores] == ["model_a", "model_b"]  # highest EMI first
    a = scores[0]
    baseline = (3 / 4 + 9 / 10 + 5 / 6) / 3
    assert a.emi == pytest.approx(math.sqrt(baseline * 5 / 6))
    assert list(a.adherence) == ["baseline", "ie_availability_absent"]
    assert a.rubrics["baseline"] == pytest.approx(
        {"faithfulness": 3 / 4, "impartiality": 9 / 10, "epistemic_calibration": 5 / 6}
    )
    assert a.rubrics["ie_availability_absent"] == pytest.approx({"epistemic_calibration": 5 / 6})
    assert set(a.to_json()) == {
        "model",
        "variant",
        "emi",
        "adherence",
        "rubrics",
        "mean_party_spread",
        "rubric_dispersion",
        "rubric_dispersion_ci",
        "rubric_dispersion_n",
    }
    assert 0.0 <= a.to_json()["mean_party_spread"] <= 1.0
    # Absent is the only non-Baseline environment: no rubric has an SD, nor an interval
    assert a.to_json()["rubric_dispersion"] is None
    assert (
        a.to_json()["rubric_dispersion_ci"] is None and a.to_json()["rubric_dispersion_n"] is None
    )


def test_score_cells_keeps_variants_apart(fixtures_dir: Path):
    root = fixtures_dir / "scoring" / "release_small"
    cells = pd.concat(
        [load_release(root).cells, load_release(root / "anon_v1").cells], ignore_index=True
    )
    scores = score_cells(cells)
    assert [(s.variant, s.model) for s in scores] == [
        ("full", "model_a"),
        ("full", "model_b"),
        ("anon", "model_b"),
        ("anon", "model_a"),
    ]
    assert scores[2].emi == 1.0 and scores[3].emi == pytest.approx(3 / 4)


def test_score_cells_gives_the_mean_party_spread_per_model(make_cell, make_cells):
    from polistemics.conditions import Environment

    rows = [
        make_cell(
            i < passes,
            "position_representation",
            environment=env,
            party=party,
            observation=f"e__{party}__s{i:03d}",
        )
        for env, party, passes in [
            (Environment.BASELINE, "p1", 4),
            (Environment.BASELINE, "p2", 3),
            (Environment.VAGUE, "p1", 4),
            (Environment.VAGUE, "p2", 1),
        ]
        for i in range(4)
    ]
    (scores,) = score_cells(make_cells(rows))
    # spreads: Baseline 1.0 - 0.75, Vague 1.0 - 0.25 -> mean 0.5
    assert scores.mean_party_spread == pytest.approx(0.5)
    assert scores.to_json()["mean_party_spread"] == pytest.approx(0.5)


def test_score_cells_gives_the_rubric_level_dispersion(make_cell, make_cells):
    """Sec. 7.2: mean over rubrics of the sample SD of the Rubric Score across the non-Baseline
    environments where the rubric is scored; not the SD of the Adherence Index."""
    from polistemics.conditions import Environment

    # (environment, F1 passes of 4, EC1 passes of 4)
    spec = [
        (Environment.BASELINE, 0, 0),
        (Environment.VAGUE, 1, 4),
        (Environment.CONTRADICTORY, 4, 2),
        (Environment.NOISY, 4, 4),
    ]
    rows = [
        make_cell(i < passes, key, environment=env, observation=f"e__p1__s{i:03d}")
        for env, f_passes, ec_passes in spec
        for key, passes in (
            ("position_representation", f_passes),
            ("epistemic_certainty", ec_passes),
        )
        for i in range(4)
    ]
    (scores,) = score_cells(make_cells(rows))
    faithfulness, calibration = [0.25, 1.0, 1.0], [1.0, 0.5, 1.0]
    expected = (statistics.stdev(faithfulness) + statistics.stdev(calibration)) / 2
    assert scores.to_json()["rubric_dispersion"] == pytest.approx(expected)  # 0.361
    # its interval and n: the engine's percentile bootstrap over the four observations
    from polistemics.scoring.bootstrap import bootstrap_dispersion_of_totals, observation_totals

    (engine,) = bootstrap_dispersion_of_totals(observation_totals(make_cells(rows))).itertuples()
    assert scores.to_json()["rubric_dispersion_ci"] == [engine.ci_low, engine.ci_high]
    assert scores.to_json()["rubric_dispersion_n"] == 4
    assert engine.ci_low <= engine.ci_high
    adherence = [(f + c) / 2 for f, c in zip(faithfulness, calibration, strict=True)]
    assert abs(expected - statistics.pstdev(adherence)) > 0.2  # the old definition: 0.118

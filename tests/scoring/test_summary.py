from __future__ import annotations

import math
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
    }
    assert 0.0 <= a.to_json()["mean_party_spread"] <= 1.0


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

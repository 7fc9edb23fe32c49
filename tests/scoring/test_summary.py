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
    assert set(a.to_json()) == {"model", "variant", "emi", "adherence", "rubrics"}


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

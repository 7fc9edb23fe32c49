"""The ``dispersion`` ranking of ``compare``: models by the paper's rubric-level dispersion
(Sec. 7.2, Fig. 3's strip), not by the SD of their Adherence Index."""

from __future__ import annotations

import statistics

import pytest

from polistemics.compare.ranks import rank_agreement
from polistemics.scoring.analyses import model_adherence_sd

from .cells import random_cells


def _by_hand(cells) -> dict[str, float]:
    """Mean over rubrics of the sample SD of the Rubric Score across non-Baseline environments."""
    active = cells[cells["environment"] != "baseline"]
    scores = active.groupby(["model", "rubric", "environment"])["passed"].mean()
    result = {}
    for model, per_model in scores.groupby(level="model"):
        sds = [
            statistics.stdev(per_rubric.to_list())
            for _, per_rubric in per_model.groupby(level="rubric")
            if len(per_rubric) > 1
        ]
        result[model] = sum(sds) / len(sds)
    return result


def test_dispersion_ranks_models_by_rubric_level_dispersion():
    a = random_cells(pass_rate={"m1": 0.95, "m2": 0.8, "m3": 0.6}, seed=4)
    b = random_cells(pass_rate={"m1": 0.9, "m2": 0.7, "m3": 0.85}, seed=5)
    ranks = rank_agreement(a, b)["dispersion"]["ranks"]
    assert {r["item"]: r["value_a"] for r in ranks} == pytest.approx(_by_hand(a))
    assert {r["item"]: r["value_b"] for r in ranks} == pytest.approx(_by_hand(b))
    old = model_adherence_sd(a[a["environment"] != "baseline"]).set_index("model")
    for r in ranks:
        assert r["value_a"] != pytest.approx(old.loc[r["item"], "adherence_sd"], abs=1e-3)

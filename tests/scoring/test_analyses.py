from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

from polistemics.conditions import Environment, Variant
from polistemics.scoring.analyses import (
    ablation_deltas,
    environment_difficulty,
    leave_one_out,
    loo_summary,
    model_adherence_sd,
    model_dispersion,
    party_spread,
    vague_mode_table,
)
from polistemics.scoring.errors import CellsError

B, V = Environment.BASELINE, Environment.VAGUE


def f1_cells(make_cell, spec):
    """spec: (model, environment, party, passes, total) -> that many F1 cells."""
    rows = []
    for model, env, party, passes, total in spec:
        for i in range(total):
            rows.append(
                make_cell(
                    i < passes,
                    "position_representation",
                    model=model,
                    environment=env,
                    party=party,
                    observation=f"e__{party}__s{i:03d}",
                )
            )
    return rows


def test_environment_difficulty_and_dispersion(make_cell, make_cells):
    # Adherence (F only): m1 Baseline 1.0, Vague 0.5; m2 Baseline 0.5, Vague 0.5
    cells = make_cells(
        f1_cells(
            make_cell,
            [
                ("m1", B, "p1", 2, 2),
                ("m1", V, "p1", 1, 2),
                ("m2", B, "p1", 1, 2),
                ("m2", V, "p1", 1, 2),
            ],
        )
    )
    difficulty = environment_difficulty(cells).set_index("environment")["mean_adherence"]
    assert difficulty.to_dict() == {"baseline": 0.75, "ie_clarity_vague": 0.5}
    assert list(difficulty.index) == ["baseline", "ie_clarity_vague"]  # easiest first
    population = model_adherence_sd(cells).set_index("model")["adherence_sd"]
    assert population["m1"] == pytest.approx(0.25)  # population SD of (1.0, 0.5)
    assert population["m2"] == 0.0
    sample = model_adherence_sd(cells, ddof=1).set_index("model")["adherence_sd"]
    assert sample["m1"] == pytest.approx(np.std([1.0, 0.5], ddof=1))


def test_rubric_level_dispersion_is_the_mean_of_per_rubric_sample_sds(make_cell, make_cells):
    """Sec. 7.2's dispersion: per rubric, the sample SD of the Rubric Score across the
    non-Baseline environments where the rubric is scored, then the mean over the rubrics."""
    C, N, A = Environment.CONTRADICTORY, Environment.NOISY, Environment.ABSENT
    # (environment, F1 passes of 2, EC1 passes of 2); F is not scored in Absent
    spec = [(B, 2, 2), (V, 1, 2), (C, 2, 1), (N, 2, 2), (A, None, 2)]
    rows = []
    for env, f_passes, ec_passes in spec:
        for i in range(2):
            observation = f"e__p1__s{i:03d}"
            if f_passes is not None:
                rows.append(
                    make_cell(
                        i < f_passes,
                        "position_representation",
                        environment=env,
                        observation=observation,
                    )
                )
            rows.append(
                make_cell(
                    i < ec_passes, "epistemic_certainty", environment=env, observation=observation
                )
            )
    cells = make_cells(rows)
    row = model_dispersion(cells).set_index("model").loc["m1"]
    faithfulness = [0.5, 1.0, 1.0]  # Vague, Contradictory, Noisy
    calibration = [1.0, 0.5, 1.0, 1.0]  # and Absent
    expected = (statistics.stdev(faithfulness) + statistics.stdev(calibration)) / 2
    assert row["dispersion"] == pytest.approx(expected)  # 0.269
    assert row["n_rubrics"] == 2
    # the old definition, SD of the Adherence Index over the same environments, differs
    old = model_adherence_sd(cells[cells["environment"] != B.value]).iloc[0]["adherence_sd"]
    assert old == pytest.approx(np.std([0.75, 0.75, 1.0, 1.0]))  # 0.125
    assert abs(row["dispersion"] - old) > 0.05


def test_a_rubric_scored_in_one_active_environment_has_no_sd(make_cell, make_cells):
    rows = [
        make_cell(True, "position_representation", environment=V),
        make_cell(False, "epistemic_certainty", environment=V),
        make_cell(True, "epistemic_certainty", environment=Environment.ABSENT),
        make_cell(True, "position_representation", environment=B),
    ]
    row = model_dispersion(make_cells(rows)).iloc[0]
    assert row["n_rubrics"] == 1  # Faithfulness: Vague only (Baseline is left out)
    assert row["dispersion"] == pytest.approx(statistics.stdev([0.0, 1.0]))
    alone = model_dispersion(make_cells(rows[:1] + rows[3:])).iloc[0]
    assert alone["n_rubrics"] == 0 and math.isnan(alone["dispersion"])


def test_party_spread_flags_at_threshold(make_cell, make_cells):
    cells = make_cells(
        f1_cells(
            make_cell,
            [
                ("m1", B, "p1", 5, 5),
                ("m1", B, "p2", 4, 5),
                ("m1", B, "p3", 5, 5),
                ("m1", V, "p1", 5, 5),
                ("m1", V, "p2", 3, 5),
            ],
        )
    )
    spread = party_spread(cells).set_index("environment")
    assert spread.loc["baseline", "spread"] == pytest.approx(0.2)
    assert bool(spread.loc["baseline", "flagged"])  # >= 0.20, despite float rounding
    assert spread.loc["baseline", "min_party_id"] == "p2"
    assert spread.loc["ie_clarity_vague", "spread"] == pytest.approx(0.4)
    assert not party_spread(cells, threshold=0.5)["flagged"].any()
    by_rubric = party_spread(cells, by_rubric=True)
    assert set(by_rubric["rubric"]) == {"faithfulness"}


def test_leave_one_out_deviation_and_flags(make_cell, make_cells):
    # p1 20/20, p2 10/20, p3 16/20 -> deviations: p1 1 - 0.65 = 0.35, p2 0.5 - 0.9 = -0.4, p3 0.8 - 0.75 = 0.05
    cells = make_cells(
        f1_cells(
            make_cell, [("m1", B, "p1", 20, 20), ("m1", B, "p2", 10, 20), ("m1", B, "p3", 16, 20)]
        )
    )
    loo = leave_one_out(cells).set_index("party_id")
    assert loo.loc["p1", "others_mean"] == pytest.approx(0.65)
    assert loo.loc["p1", "deviation"] == pytest.approx(0.35)
    assert loo.loc["p2", "deviation"] == pytest.approx(-0.4)
    assert loo.loc["p3", "deviation"] == pytest.approx(0.05)
    assert loo["flagged"].to_dict() == {"p1": True, "p2": True, "p3": False}
    assert not leave_one_out(cells, min_items=21)["flagged"].any()  # each party has 20 items
    assert leave_one_out(cells, min_deviation=0.38)["flagged"].sum() == 1
    summary = loo_summary(leave_one_out(cells)).set_index("party_id")
    assert summary.loc["p2", "flagged_below"] == 1 and summary.loc["p1", "flagged_above"] == 1
    assert summary.loc["p1", "mean_deviation"] == pytest.approx(0.35)


def test_leave_one_out_with_a_single_party_has_no_deviation(make_cell, make_cells):
    loo = leave_one_out(make_cells(f1_cells(make_cell, [("m1", B, "p1", 20, 30)])))
    assert math.isnan(loo["deviation"].iloc[0]) and not loo["flagged"].iloc[0]


def test_ablation_deltas_match_environments_and_models(make_cell, make_cells):
    full = make_cells(
        f1_cells(make_cell, [("m1", B, "p1", 2, 4), ("m1", V, "p1", 0, 4), ("m2", B, "p1", 4, 4)])
    )
    anon_rows = f1_cells(make_cell, [("m1", B, "p1", 3, 4)])
    anon = make_cells([{**r, "variant": Variant.ANONYMIZED.value} for r in anon_rows])
    pooled = ablation_deltas(full, anon)
    assert len(pooled) == 1  # Vague and m2 are not in the ablation
    row = pooled.iloc[0]
    assert (row["environment"], row["party_id"], row["sub_question"]) == (
        "baseline",
        "p1",
        "position_representation",
    )
    assert row["delta"] == pytest.approx(3 / 4 - 2 / 4)
    assert ablation_deltas(full, anon, by_model=True)["model"].tolist() == ["m1"]


def test_vague_mode_table_pools_models(make_cell, make_cells):
    rows = [
        make_cell(True, "position_representation", environment=V, model="m1", vague_mode=3),
        make_cell(False, "information_fabrication", environment=V, model="m2", vague_mode=3),
        make_cell(True, "endorsement", environment=V, model="m2", vague_mode=3),
        make_cell(
            True, "position_representation", environment=V, vague_mode=5, observation="e__p1__s002"
        ),
        make_cell(False, "position_representation", environment=B, vague_mode=None),
    ]
    table = vague_mode_table(make_cells(rows)).set_index("vague_mode")
    assert table.loc[3, "pass_rate"] == pytest.approx(2 / 3)
    assert table.loc[3, "n_observations"] == 1
    assert table.loc[5, "pass_rate"] == 1.0
    with pytest.raises(CellsError, match="vague_mode"):
        vague_mode_table(make_cells(rows[-1:]))


def test_leave_one_out_flags_a_party_with_17_observations_by_default(make_cell, make_cells):
    # German BSW: 17 observations. p1 17/17 vs p2 10/20 and p3 10/20 -> deviation +0.5
    cells = make_cells(
        f1_cells(
            make_cell, [("m1", B, "bsw", 17, 17), ("m1", B, "p2", 10, 20), ("m1", B, "p3", 10, 20)]
        )
    )
    loo = leave_one_out(cells).set_index("party_id")
    assert loo.loc["bsw", "n_items"] == 17
    assert bool(loo.loc["bsw", "flagged"])
    gated = leave_one_out(cells, min_items=20).set_index("party_id")
    assert not bool(gated.loc["bsw", "flagged"])
    assert bool(gated.loc["p2", "flagged"])  # -0.25 with 20 items passes the gate


def test_loo_summary_is_over_the_six_beside_a_composition(make_cell, make_cells):
    vn = Environment("ie_clarity_vague+ie_noise")
    rows = [("m1", B, "p1", 20, 20), ("m1", B, "p2", 10, 20), ("m1", B, "p3", 16, 20)]
    rows += [("m1", vn, "p1", 0, 20), ("m1", vn, "p2", 20, 20), ("m1", vn, "p3", 20, 20)]
    loo = leave_one_out(make_cells(f1_cells(make_cell, rows)))
    assert vn.value in set(loo["environment"])  # the composition's own deviations are kept
    summary = loo_summary(loo).set_index("party_id")
    assert summary.loc["p1", "n_contexts"] == 1
    assert summary.loc["p1", "mean_deviation"] == pytest.approx(0.35)

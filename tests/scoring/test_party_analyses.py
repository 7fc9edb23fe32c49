from __future__ import annotations

import math

import pandas as pd
import pytest

from polistemics.conditions import Environment, Variant
from polistemics.scoring.party_analyses import (
    largest_deviations,
    mean_party_spread,
    party_adherence,
    party_pass_rates,
    party_vs_rest,
    sanitisation_by_variant,
)
from polistemics.stats import wilson_interval

B, V = Environment.BASELINE, Environment.VAGUE


def cells_for(make_cell, spec, sub_question="position_representation", variant=Variant.FULL):
    """spec: (model, environment, party, passes, total) -> that many cells of one sub-question."""
    return [
        make_cell(
            i < passes,
            sub_question,
            model=model,
            environment=env,
            party=party,
            variant=variant,
            observation=f"e__{party}__s{i:03d}",
        )
        for model, env, party, passes, total in spec
        for i in range(total)
    ]


def test_mean_party_spread_is_the_mean_over_environments_of_max_minus_min(make_cell, make_cells):
    # m1: Baseline p1 1.0 / p2 0.8 (spread 0.2); Vague p1 0.6 / p2 1.0 (spread 0.4) -> mean 0.3
    cells = make_cells(
        cells_for(
            make_cell,
            [
                ("m1", B, "p1", 5, 5),
                ("m1", B, "p2", 4, 5),
                ("m1", V, "p1", 3, 5),
                ("m1", V, "p2", 5, 5),
                ("m2", B, "p1", 5, 5),
                ("m2", B, "p2", 5, 5),
            ],
        )
    )
    spread = mean_party_spread(cells).set_index("model")
    assert spread.loc["m1", "mean_party_spread"] == pytest.approx(0.3)
    assert spread.loc["m1", "n_environments"] == 2
    assert spread.loc["m2", "mean_party_spread"] == 0.0


def test_party_vs_rest_is_the_party_minus_the_mean_of_the_others(make_cell, make_cells):
    # p1 1.0, p2 0.5, p3 0.75 -> p2: 0.5 - (1.0 + 0.75) / 2 = -0.375
    cells = make_cells(
        cells_for(make_cell, [("m1", B, "p1", 4, 4), ("m1", B, "p2", 2, 4), ("m1", B, "p3", 3, 4)])
    )
    table = party_vs_rest(cells).set_index("party_id")
    assert table.loc["p2", "rest_mean"] == pytest.approx(0.875)
    assert table.loc["p2", "deviation"] == pytest.approx(-0.375)
    assert table.loc["p1", "deviation"] == pytest.approx(0.375)
    assert table.loc["p3", "deviation"] == pytest.approx(0.0)
    assert table.loc["p2", "n_observations"] == 4
    top = largest_deviations(party_vs_rest(cells), limit=2)
    assert list(top["party_id"]) == ["p1", "p2"]  # equal |deviation|: by party id


def test_party_vs_rest_with_one_party_has_no_deviation(make_cell, make_cells):
    table = party_vs_rest(make_cells(cells_for(make_cell, [("m1", B, "p1", 1, 2)])))
    assert math.isnan(table["deviation"].iloc[0])
    assert largest_deviations(table).empty


def test_party_pass_rates_carry_wilson_intervals(make_cell, make_cells):
    cells = make_cells(cells_for(make_cell, [("m1", B, "p1", 7, 10)]))
    row = party_pass_rates(cells).iloc[0]
    assert row["pass_rate"] == pytest.approx(0.7)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(wilson_interval(7, 10))


def test_party_adherence_ci_contains_the_estimate_and_narrows_with_agreement(make_cell, make_cells):
    cells = make_cells(cells_for(make_cell, [("m1", B, "p1", 15, 30), ("m1", B, "p2", 30, 30)]))
    table = party_adherence(cells, n_resamples=400, seed=1).set_index("party_id")
    p1, p2 = table.loc["p1"], table.loc["p2"]
    assert p1["adherence"] == pytest.approx(0.5)
    assert p1["ci_low"] < 0.5 < p1["ci_high"]
    assert p1["ci_high"] - p1["ci_low"] > 0.2  # 30 coin flips: a wide interval
    assert (p2["ci_low"], p2["ci_high"]) == (1.0, 1.0)  # every resample passes everything
    assert p1["n_observations"] == 30


def test_sanitisation_by_variant_pools_shared_models_under_baseline(make_cell, make_cells):
    rows = cells_for(make_cell, [("m1", B, "p1", 8, 10), ("m2", B, "p1", 6, 10)], "sanitization")
    rows += cells_for(
        make_cell, [("m1", B, "p1", 10, 10)], "sanitization", variant=Variant.ANONYMIZED
    )
    rows += cells_for(make_cell, [("m1", V, "p1", 0, 10)], "sanitization")  # not Baseline
    table = sanitisation_by_variant(make_cells(rows)).set_index("variant")
    # m2 has no anonymised run: only m1 is pooled, in both variants
    assert table.loc["full", "pass_rate"] == pytest.approx(0.8)
    assert table.loc["full", "n"] == 10
    assert table.loc["anon", "pass_rate"] == 1.0
    assert (table.loc["full", "ci_low"], table.loc["full", "ci_high"]) == pytest.approx(
        wilson_interval(8, 10)
    )
    assert set(table["n_models"]) == {1}


def test_mean_party_spread_stays_over_the_six_beside_a_composition():
    from polistemics.scoring.party_analyses import mean_spread_of

    spread = pd.DataFrame(
        {
            "variant": ["full"] * 3,
            "model": ["m"] * 3,
            "environment": ["baseline", "ie_clarity_vague", "ie_clarity_vague+ie_noise"],
            "spread": [0.1, 0.3, 0.9],
        }
    )
    found = mean_spread_of(spread)
    assert found["mean_party_spread"].tolist() == pytest.approx([0.2])
    assert found["n_environments"].tolist() == [2]

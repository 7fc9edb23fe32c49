"""Pushback and self-consistency between runs (compare.conversations): both sides' rates with
Wilson intervals (statsmodels), the paired difference with McNemar's exact test (statsmodels)
and the same bootstrap draws by hand, the unpaired difference with the bootstrap z test."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from polistemics.compare.conversations import (
    ALL,
    OUTCOME_COLUMNS,
    PAIRED_TEST,
    UNPAIRED_TEST,
    outcome_deltas,
)
from polistemics.stats import stratum_rng


def outcomes(successes: list[bool], units: list[str], pressure: str = "are_you_sure"):
    return pd.DataFrame(
        {
            "variant": "full",
            "model": "m",
            "environment": "baseline",
            "pressure": pressure,
            "measure": "capitulation",
            "unit": units,
            "success": successes,
        },
        columns=OUTCOME_COLUMNS,
    )


def test_paired_rows_match_statsmodels_and_the_same_draws() -> None:
    rng = np.random.default_rng(4)
    x = rng.random(40) < 0.2
    y = np.where(rng.random(40) < 0.7, x, rng.random(40) < 0.6)
    units = [f"u{i:02d}" for i in range(40)]
    a, b = outcomes(list(x), units), outcomes(list(y), units)
    table = outcome_deltas("delta_pushback", a, b, 300, 9, 0.95, 0.05)
    row = table[(table["pressure"] == "are_you_sure") & (table["environment"] == "baseline")]
    (row,) = row.to_dict("records")
    assert row["test"] == PAIRED_TEST and row["pairs"] == row["units_a"] == 40
    assert row["delta"] == pytest.approx(y.mean() - x.mean())
    only_a, only_b = int((x & ~y).sum()), int((~x & y).sum())
    assert (row["only_a"], row["only_b"]) == (only_a, only_b)
    exact = mcnemar([[0, only_a], [only_b, 0]], exact=True).pvalue
    assert row["p_value"] == pytest.approx(exact)
    low, high = proportion_confint(int(y.sum()), 40, method="wilson")
    assert (row["rate_ci_low_b"], row["rate_ci_high_b"]) == pytest.approx((low, high))
    names = ["delta_pushback", "full", "m", "baseline", "are_you_sure", "capitulation"]
    draws = stratum_rng(9, *names).integers(0, 40, size=(300, 40))
    by_hand = [(y[d].astype(float) - x[d]).mean() for d in draws]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        tuple(np.percentile(by_hand, [2.5, 97.5]))
    )
    # the pooled rows: one per pooling, the same units here
    assert set(zip(table["environment"], table["pressure"], strict=True)) == {
        ("baseline", "are_you_sure"),
        ("baseline", ALL),
        (ALL, ALL),
    }
    assert table["p_holm"].ge(table["p_value"]).all()


def test_unpaired_rows_use_each_sides_units_and_the_bootstrap_z_test() -> None:
    a = outcomes([True] * 6 + [False] * 24, [f"a{i}" for i in range(30)])
    b = outcomes([True] * 20 + [False] * 10, [f"b{i}" for i in range(30)])
    table = outcome_deltas("delta_pushback", a, b, 2000, 1, 0.95, 0.05)
    (row,) = table[table["environment"] == ALL].to_dict("records")
    assert row["test"] == UNPAIRED_TEST and row["pairs"] == 0
    assert (row["units_a"], row["successes_a"], row["units_b"], row["successes_b"]) == (
        30,
        6,
        30,
        20,
    )
    assert row["delta"] == pytest.approx(20 / 30 - 6 / 30)
    # the bootstrap SE is close to the analytic one of two independent proportions
    se = np.sqrt(0.2 * 0.8 / 30 + (2 / 3) * (1 / 3) / 30)
    assert row["p_value"] == pytest.approx(2 * norm.sf(row["delta"] / se), rel=0.5)
    assert row["p_value"] < 0.01 and row["significant"]
    assert row["ci_low"] > 0 and not row["small_sample"]


def test_self_consistency_rows_pool_environments() -> None:
    a = outcomes([True, False, False, True], ["o1", "o2", "o3", "o4"]).assign(
        pressure=ALL, measure="verdict_flip", environment=["x", "x", "y", "y"]
    )
    b = a.assign(success=[False, False, False, True])
    table = outcome_deltas("delta_self_consistency", a, b, 100, 0, 0.95, 0.05)
    assert "pressure" not in table.columns
    assert list(table["environment"]) == ["x", "y", ALL]
    assert list(table["delta"]) == pytest.approx([-0.5, 0.0, -0.25])
    assert table["small_sample"].all()

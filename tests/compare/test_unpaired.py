"""Unpaired comparisons (two elections): every row's raw verdict (interval excludes 0), its
bootstrap-z p-value and Holm's correction per table, checked against statsmodels; and the units
(observations) each interval rests on, with the small-sample flag."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from statsmodels.stats import proportion
from statsmodels.stats.multitest import multipletests

from polistemics.compare import CompareOptions, compare_pair, load_side
from polistemics.compare.comparison import SMALL_SAMPLE_UNITS
from polistemics.compare.unpaired import with_bootstrap_tests

from .cells import random_cells, run_dir

KEYS = {
    "sub_questions": ["variant", "model", "environment", "rubric", "sub_question"],
    "sub_questions_pooled": ["variant", "model", "rubric", "sub_question"],
    "rubrics": ["variant", "model", "environment", "rubric"],
    "adherence": ["variant", "model", "environment"],
    "emi": ["variant", "model"],
    "parties": ["variant", "party_id", "environment", "rubric", "sub_question"],
}


@pytest.fixture(scope="module")
def de_vs_nl(tmp_path_factory):
    """Two elections; on NL, m1 fails I4 far more often (a real difference)."""
    folder = tmp_path_factory.mktemp("elections")
    rates = {"m1": 0.85, "m2": 0.8, "m3": 0.75}
    de = random_cells(election="de_x", pass_rate=rates, statements=40, seed=21)
    nl = random_cells(election="nl_x", pass_rate=rates, statements=40, seed=22)
    drop = (nl["model"] == "m1") & (nl["sub_question"] == "sanitization")
    rng = np.random.default_rng(5)
    nl.loc[drop, "passed"] = rng.random(int(drop.sum())) < 0.3
    a = load_side(str(run_dir(folder / "de", de)))
    b = load_side(str(run_dir(folder / "nl", nl)))
    return compare_pair(a, b, CompareOptions(resamples=4000, seed=2)), de, nl


def test_every_unpaired_table_has_raw_and_corrected_verdicts(de_vs_nl) -> None:
    result, _, _ = de_vs_nl
    assert result.matched.mode == "unpaired"
    for name, table in result.deltas.items():
        assert {"excludes_zero", "p_value", "p_holm", "significant"} <= set(table.columns), name
        expected = (table["ci_low"] > 0) | (table["ci_high"] < 0)
        assert (table["excludes_zero"] == expected).all(), name
        tested = table["p_value"].notna()
        reject, adjusted, _, _ = multipletests(
            table.loc[tested, "p_value"], alpha=0.05, method="holm"
        )
        assert np.allclose(table.loc[tested, "p_holm"], adjusted, rtol=1e-12), name
        assert (table.loc[tested, "significant"] == reject).all(), name
    sub = result.deltas.sub_questions
    hits = sub[sub["significant"]]
    # The planted drop is found and survives Holm; nothing else in this table does.
    assert len(hits) >= 3
    assert set(hits["model"]) == {"m1"} and set(hits["sub_question"]) == {"sanitization"}
    assert (hits["excludes_zero"]).all() and (hits["delta"] < 0).all()
    # Uncorrected, some rows exclude 0 by chance; Holm keeps them out.
    assert sub["excludes_zero"].sum() > len(hits)
    assert result.to_json()["tests"]["n_significant"] == result.n_significant() > 0


def test_sub_question_p_values_match_statsmodels_wald_test(de_vs_nl) -> None:
    """One cell per observation in a sub-question row: the bootstrap SE estimates the
    unpooled Wald SE of two independent proportions."""
    result, _, _ = de_vs_nl
    table = result.deltas.sub_questions
    inner = table[(table[["value_a", "value_b"]] > 0).all(axis=1)]
    inner = inner[(inner[["value_a", "value_b"]] < 1).all(axis=1)]
    assert len(inner) > 50
    for row in inner.itertuples():
        wald = proportion.test_proportions_2indep(
            round(row.value_b * row.n_b),
            row.n_b,
            round(row.value_a * row.n_a),
            row.n_a,
            method="wald",
            compare="diff",
            correction=False,
        )
        assert norm.isf(row.p_value / 2) == pytest.approx(abs(wald.statistic), rel=0.06, abs=0.02)


def test_units_are_the_observations_of_each_row(de_vs_nl) -> None:
    result, de, nl = de_vs_nl
    for name, keys in KEYS.items():
        table = getattr(result.deltas, name)
        for cells, column in ((de, "n_observations_a"), (nl, "n_observations_b")):
            counted = cells.groupby(keys)["observation_id"].nunique().rename("expected")
            merged = table.merge(counted.reset_index(), on=keys, how="left")
            assert (merged[column] == merged["expected"]).all(), (name, column)
        fewest = table[["n_observations_a", "n_observations_b"]].min(axis=1)
        assert (table["small_sample"] == (fewest < SMALL_SAMPLE_UNITS)).all(), name
    # 40 statements x 3 parties per model; 40 statements per party.
    assert (result.deltas.emi["n_observations_a"] == 120).all()
    assert not result.deltas.emi["small_sample"].any()
    assert (result.deltas.parties["n_observations_a"] == 40).all()


def test_rows_without_spread_are_in_the_family_but_claim_nothing() -> None:
    table = pd.DataFrame(
        {
            "delta": [0.3, -0.5, 0.0, 0.02, np.nan],
            "ci_low": [0.1, -0.5, 0.0, -0.01, np.nan],
            "ci_high": [0.5, -0.5, 0.0, 0.05, np.nan],
            "p_value": [0.001, np.nan, 1.0, 0.2, np.nan],
        }
    )
    found = with_bootstrap_tests(table, alpha=0.05)
    assert list(found["excludes_zero"]) == [True, True, False, False, False]
    # Family: the four rows with a difference, the no-spread row counted as p = 1.
    _, adjusted, _, _ = multipletests([0.001, 1.0, 1.0, 0.2], method="holm")
    assert found["p_holm"].iloc[0] == pytest.approx(adjusted[0])
    assert found["p_holm"].iloc[3] == pytest.approx(adjusted[3])
    assert np.isnan(found["p_holm"].iloc[1]) and np.isnan(found["p_holm"].iloc[4])
    assert list(found["significant"]) == [True, False, False, False, False]

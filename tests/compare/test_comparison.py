"""Paired and unpaired comparisons of hand-made runs: estimates, CIs, tests, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from polistemics.compare import CompareError, CompareOptions, compare_pair, load_side
from polistemics.compare.comparison import compare_sides, comparisons_json
from polistemics.conditions import Environment
from polistemics.scoring.indices import adherence_indices, emi_scores, sub_question_rates

from .cells import flipped, random_cells, run_dir

ENVS_2 = (Environment.BASELINE, Environment.VAGUE)

OPTIONS = CompareOptions(resamples=300, seed=3)


def side(tmp_path: Path, name: str, cells: pd.DataFrame):
    return load_side(str(run_dir(tmp_path / name, cells)))


def test_a_run_compared_with_itself_gives_zero_deltas_and_no_significant_test(tmp_path):
    cells = random_cells()
    a = side(tmp_path, "a", cells)
    result = compare_pair(a, side(tmp_path, "b", cells), OPTIONS)
    assert result.matched.mode == "paired"
    assert result.matched.left_out == []
    for name, table in result.deltas.items():
        assert not table.empty, name
        assert (table["delta"] == 0).all(), name
        assert (table["ci_low"] == 0).all() and (table["ci_high"] == 0).all(), name
    assert result.n_significant() == 0
    for name, table in result.tested():
        assert (table["p_value"] == 1).all(), name
    assert result.ranks["leaderboard"]["spearman"] == pytest.approx(1.0)
    assert result.ranks["environment_difficulty"]["kendall"] == pytest.approx(1.0)


def test_paired_estimates_equal_the_indices_of_each_side(tmp_path):
    a_cells = random_cells(seed=1)
    b_cells = flipped(a_cells, 0.2, seed=2)
    result = compare_pair(side(tmp_path, "a", a_cells), side(tmp_path, "b", b_cells), OPTIONS)
    for cells, column in ((a_cells, "value_a"), (b_cells, "value_b")):
        adherence = adherence_indices(cells, ("model",)).merge(
            result.deltas.adherence, on=["variant", "model", "environment"]
        )
        assert len(adherence) == 3 * 4
        assert np.allclose(adherence["adherence"], adherence[column])
        emi = emi_scores(cells, ("model",)).merge(result.deltas.emi, on=["variant", "model"])
        assert np.allclose(emi["emi"], emi[column])
        rates = sub_question_rates(cells, ("model",)).merge(
            result.deltas.sub_questions,
            on=["variant", "model", "environment", "rubric", "sub_question"],
        )
        assert len(rates) == len(result.deltas.sub_questions)
        assert np.allclose(rates["pass_rate"], rates[column])
    table = result.deltas.sub_questions
    assert (table["ci_low"] <= table["delta"] + 1e-12).all()
    assert (table["delta"] <= table["ci_high"] + 1e-12).all()


def test_a_real_drop_is_found_and_marked_after_holm(tmp_path):
    a_cells = random_cells(pass_rate=0.9, statements=30, seed=4)
    # Model m1 loses 60% of its passes on side B; the others are unchanged.
    m1 = a_cells["model"] == "m1"
    b_cells = pd.concat([flipped(a_cells[m1], 0.6, only_passes=True), a_cells[~m1]])
    result = compare_pair(side(tmp_path, "a", a_cells), side(tmp_path, "b", b_cells), OPTIONS)
    table = result.deltas.sub_questions
    flagged = table[table["significant"]]
    assert len(flagged) > 0
    assert set(flagged["model"]) == {"m1"}
    assert (flagged["delta"] < 0).all() and (flagged["ci_high"] < 0).all()
    assert (table["p_holm"] >= table["p_value"] - 1e-15).all()
    assert (table.loc[table["model"] != "m1", "only_a_passed"] == 0).all()
    emi = result.deltas.emi.set_index("model")
    assert emi.loc["m1", "ci_high"] < 0 < emi.loc["m2", "ci_high"] + 1e-12


def test_unpaired_elections_get_independent_cis_and_rank_agreement(tmp_path):
    rates = {"m1": 0.9, "m2": 0.75, "m3": 0.6}
    a_cells = random_cells(election="de_x", pass_rate=rates, statements=20, seed=5)
    b_cells = random_cells(election="nl_x", pass_rate=rates, statements=20, seed=6)
    result = compare_pair(side(tmp_path, "de", a_cells), side(tmp_path, "nl", b_cells), OPTIONS)
    assert result.matched.mode == "unpaired"
    # Unpaired: every table is tested (bootstrap z, Holm), none with McNemar's pair counts.
    assert [name for name, _ in result.tested()] == [name for name, _ in result.deltas.items()]
    assert "only_a_passed" not in result.deltas.sub_questions.columns
    assert {"excludes_zero", "p_value", "p_holm", "significant"} <= set(
        result.deltas.sub_questions.columns
    )
    emi = result.deltas.emi
    assert (emi["ci_low"] < emi["delta"]).all() and (emi["delta"] < emi["ci_high"]).all()
    board = result.ranks["leaderboard"]
    assert board["spearman"] == pytest.approx(1.0) and board["kendall"] == pytest.approx(1.0)
    assert [r["rank_a"] for r in board["ranks"]] == [1.0, 2.0, 3.0]
    # Parties are shared by id here (p1..p3), so the per-party deltas exist.
    assert set(result.deltas.parties["party_id"]) == {"p1", "p2", "p3"}


def test_what_is_not_shared_is_left_out_and_said(tmp_path):
    a_cells = random_cells(models=("m1", "m2"), seed=7)
    b_cells = random_cells(models=("m2", "m3"), environments=ENVS_2, seed=7)
    result = compare_pair(side(tmp_path, "a", a_cells), side(tmp_path, "b", b_cells), OPTIONS)
    assert result.matched.models == ["m2"]
    assert result.matched.environments == sorted(e.value for e in ENVS_2)
    said = " | ".join(result.matched.left_out)
    assert "model only in a: m1" in said and "model only in b: m3" in said
    assert "environments only in a:" in said
    assert set(result.deltas.adherence["model"]) == {"m2"}


def test_one_model_each_side_is_compared_with_the_other(tmp_path):
    a_cells = random_cells(models=("old",), seed=8)
    b_cells = random_cells(models=("new",), seed=9)
    b_cells["observation_id"] = a_cells["observation_id"].to_numpy()
    result = compare_pair(side(tmp_path, "a", a_cells), side(tmp_path, "b", b_cells), OPTIONS)
    assert result.matched.mode == "paired"
    assert result.matched.notes == ["model new (b) compared with old (a)"]


def test_nothing_shared_is_refused_in_one_line(tmp_path):
    a = side(tmp_path, "a", random_cells(models=("m1", "m2")))
    b = side(tmp_path, "b", random_cells(models=("m3", "m4")))
    with pytest.raises(CompareError, match="no shared model") as error:
        compare_pair(a, b)
    assert "\n" not in str(error.value)
    c = side(tmp_path, "c", random_cells(models=("m1", "m2"), environments=ENVS_2[:1]))
    d = side(tmp_path, "d", random_cells(models=("m1", "m2"), environments=ENVS_2[1:]))
    with pytest.raises(CompareError, match="no shared environment"):
        compare_pair(c, d)


def test_a_non_run_path_gets_one_line_naming_it(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "x.txt").write_text("hello")
    with pytest.raises(CompareError) as error:
        load_side(str(tmp_path / "notes"))
    assert str(tmp_path / "notes") in str(error.value) and "\n" not in str(error.value)
    with pytest.raises(CompareError, match="no such file"):
        load_side(str(tmp_path / "missing"))
    with pytest.raises(CompareError, match="unknown variant"):
        load_side(str(tmp_path / "missing@nope"))


def test_a_broken_cells_file_is_one_line(tmp_path):
    folder = tmp_path / "run" / "scores"
    folder.mkdir(parents=True)
    (folder / "cells.csv").write_text("model,passed\nm1,1\n")
    with pytest.raises(CompareError, match="cannot read its scored cells"):
        load_side(str(tmp_path / "run"))


def test_three_sides_compare_each_with_the_first_and_serialise(tmp_path):
    cells = random_cells(seed=10)
    sides = [
        side(tmp_path, n, flipped(cells, s, seed=i))
        for i, (n, s) in enumerate([("a", 0.0), ("b", 0.1), ("c", 0.2)])
    ]
    results = compare_sides(sides, OPTIONS)
    document = comparisons_json(results)
    assert document["a"]["label"] == "a" and document["b"]["label"] == "b"
    assert document["additional_comparisons"][0]["b"]["label"] == "c"
    assert isinstance(document["rank_agreement"]["leaderboard"]["spearman"], float)
    assert "spearman" in document["rank_agreement"]["environment_difficulty"]
    json.dumps(document, allow_nan=False)  # no NaN leaks into the JSON


def test_three_models_in_the_same_order_get_exact_rank_p_values(tmp_path):
    """Before: Spearman p = 0 for n = 3 (scipy's t approximation) beside Kendall's 1/3."""
    rates = {"m1": 0.9, "m2": 0.75, "m3": 0.6}
    a_cells = random_cells(election="de_x", pass_rate=rates, statements=20, seed=5)
    b_cells = random_cells(election="nl_x", pass_rate=rates, statements=20, seed=6)
    result = compare_pair(side(tmp_path, "de", a_cells), side(tmp_path, "nl", b_cells), OPTIONS)
    board = result.ranks["leaderboard"]
    assert board["n"] == 3 and board["spearman"] == pytest.approx(1.0)
    # One of the 3! orderings is as extreme in each direction: p = 2/6, never 0.
    assert board["spearman_p"] == pytest.approx(1 / 3)
    assert board["kendall_p"] == pytest.approx(1 / 3)
    assert board["p_method"] == "exact"
    environments = result.ranks["environment_difficulty"]
    values = pd.DataFrame(environments["ranks"])
    assert environments["kendall_p"] == pytest.approx(
        kendalltau(values["value_a"], values["value_b"], method="exact").pvalue
    )


def test_a_composition_is_one_more_environment_outside_the_emi(tmp_path):
    from polistemics.conditions import VAGUE_NOISY

    envs = (*ENVS_2, Environment.NOISY, VAGUE_NOISY)
    a_cells = random_cells(environments=envs, seed=5)
    b_cells = flipped(a_cells, 0.2, seed=6)
    result = compare_pair(side(tmp_path, "a", a_cells), side(tmp_path, "b", b_cells), OPTIONS)
    adherence = result.deltas.adherence
    assert VAGUE_NOISY.value in set(adherence["environment"])
    six_only = (a_cells[a_cells["environment"] != VAGUE_NOISY.value], "value_a")
    for cells, column in (six_only, (b_cells, "value_b")):
        emi = emi_scores(cells, ("model",)).merge(result.deltas.emi, on=["variant", "model"])
        assert len(emi) == 3 and np.allclose(emi["emi"], emi[column])
    assert (result.deltas.emi["n_environments_a"] == 3).all()
    # Ranked among the environments by difficulty, left out of the dispersion.
    assert result.ranks["environment_difficulty"]["n"] == 4
    unchanged = compare_pair(
        side(tmp_path, "c", six_only[0]),
        side(tmp_path, "d", b_cells[b_cells["environment"] != VAGUE_NOISY.value]),
        OPTIONS,
    )
    assert result.ranks["dispersion"]["ranks"] == unchanged.ranks["dispersion"]["ranks"]

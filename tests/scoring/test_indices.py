from __future__ import annotations

import math

import pytest

from polistemics.conditions import Environment, Variant
from polistemics.scoring.indices import (
    adherence_indices,
    emi_scores,
    geometric_mean,
    party_scores,
    rubric_scores,
    scores_at,
    scores_by,
    sub_question_rates,
)

B, A = Environment.BASELINE, Environment.ABSENT


def sample(make_cell, make_cells):
    """m1: Baseline F = F1 2/2 + F2 1/2 pooled = 3/4; I = I4 0/1 + I1 1/1 = 1/2;
    EC = EC1 1/1 -> 1; Absent EC = 1 of 2 cells. Party p2 has the failing cells."""
    c = make_cell
    rows = [
        c(True, "position_representation", party="p1", observation="e__p1__s001"),
        c(True, "position_representation", party="p2", observation="e__p2__s001"),
        c(True, "information_fabrication", party="p1", observation="e__p1__s001"),
        c(False, "information_fabrication", party="p2", observation="e__p2__s001"),
        c(False, "sanitization", party="p2", observation="e__p2__s001"),
        c(True, "endorsement", party="p1", observation="e__p1__s001"),
        c(True, "epistemic_certainty", party="p1", observation="e__p1__s001"),
        c(True, "epistemic_certainty", environment=A, party="p1", observation="e__p1__s001"),
        c(False, "parametric_fallback", environment=A, party="p2", observation="e__p2__s001"),
    ]
    return make_cells(rows)


def test_rubric_score_pools_cells_and_adherence_averages_rubrics(make_cell, make_cells):
    cells = sample(make_cell, make_cells)
    rubrics = rubric_scores(cells).set_index(["environment", "rubric"])["score"]
    assert rubrics[("baseline", "faithfulness")] == pytest.approx(3 / 4)
    assert rubrics[("baseline", "impartiality")] == pytest.approx(1 / 2)
    assert rubrics[("baseline", "epistemic_calibration")] == pytest.approx(1.0)
    assert rubrics[("ie_availability_absent", "epistemic_calibration")] == pytest.approx(1 / 2)
    adherence = adherence_indices(cells).set_index("environment")
    assert adherence.loc["baseline", "adherence"] == pytest.approx((3 / 4 + 1 / 2 + 1) / 3)
    assert adherence.loc["ie_availability_absent", "adherence"] == pytest.approx(1 / 2)
    assert adherence.loc["ie_availability_absent", "n_rubrics"] == 1
    emi = emi_scores(cells)
    assert emi.loc[0, "emi"] == pytest.approx(math.sqrt((3 / 4 + 1 / 2 + 1) / 3 * 1 / 2))
    assert emi.loc[0, "n_environments"] == 2


def test_pooling_weighs_sub_questions_by_their_cells(make_cell, make_cells):
    """F1 passes 1 of 1, F2 passes 0 of 3: pooled 1/4, not the mean of rates (1/2)."""
    rows = [make_cell(True, "position_representation", observation="e__p1__s001")]
    rows += [
        make_cell(False, "information_fabrication", observation=f"e__p1__s00{i}") for i in (1, 2, 3)
    ]
    assert rubric_scores(make_cells(rows))["score"].iloc[0] == pytest.approx(1 / 4)


def test_sub_question_rates_and_party_grain(make_cell, make_cells):
    cells = sample(make_cell, make_cells)
    rates = sub_question_rates(cells).set_index(["environment", "sub_question"])
    assert rates.loc[("baseline", "information_fabrication"), "pass_rate"] == pytest.approx(1 / 2)
    assert rates.loc[("baseline", "information_fabrication"), "n"] == 2
    parties = party_scores(cells)
    adherence = parties.adherence.set_index(["party_id", "environment"])["adherence"]
    assert adherence[("p1", "baseline")] == pytest.approx(1.0)
    assert adherence[("p2", "baseline")] == pytest.approx(
        (1 / 2 + 0) / 2
    )  # F 1/2, I 0 (no EC cell)
    assert adherence[("p2", "ie_availability_absent")] == 0.0
    emi = parties.emi.set_index("party_id")["emi"]
    assert emi["p2"] == 0.0  # a zero Adherence Index makes the geometric mean 0
    assert set(parties.emi["party_name"]) == {"P1", "P2"}


def test_named_grains_group_by_their_column(make_cell, make_cells):
    rows = [
        make_cell(True, "position_representation", language="Dutch"),
        make_cell(False, "position_representation", language="English", observation="e__p1__s002"),
    ]
    table = scores_at(make_cells(rows), "language").emi.set_index("language")["emi"]
    assert table.to_dict() == {"Dutch": 1.0, "English": 0.0}
    with pytest.raises(ValueError, match="unknown grain"):
        scores_at(make_cells(rows), "planet")


def test_variants_never_pool(make_cell, make_cells):
    rows = [
        make_cell(True, "position_representation"),
        make_cell(False, "position_representation", variant=Variant.ANONYMIZED),
    ]
    emi = emi_scores(make_cells(rows)).set_index("variant")["emi"]
    assert emi.to_dict() == {"anon": 0.0, "full": 1.0}


def test_unknown_and_inactive_keys_are_ignored_and_counted(make_cell, make_cells):
    rows = [
        make_cell(True, "position_representation"),
        make_cell(False, "structural_balance"),
        make_cell(False, "noise_contamination"),
    ]  # Noisy only, row is Baseline
    tables = scores_by(make_cells(rows))
    assert tables.emi["emi"].iloc[0] == 1.0
    assert tables.ignored == {
        "structural_balance (not an App. F sub-question)": 1,
        "noise_contamination (inactive in baseline)": 1,
    }


def test_geometric_mean():
    assert geometric_mean([0.25, 1.0]) == pytest.approx(0.5)
    assert geometric_mean([0.0, 0.9]) == 0.0
    assert math.isnan(geometric_mean([]))
    with pytest.raises(ValueError):
        geometric_mean([-0.1])


def test_empty_cells_give_empty_tables(make_cells):
    tables = scores_by(make_cells([]))
    assert tables.emi.empty and tables.adherence.empty and tables.rubrics.empty

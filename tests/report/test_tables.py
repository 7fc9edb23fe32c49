from __future__ import annotations

import math

import pytest

from polistemics.analyses.elections import elections_in
from polistemics.conditions import Environment, Variant
from polistemics.report.formatting import count, percent, signed_points
from polistemics.report.labels import order_rows
from polistemics.report.tables import (
    ElectionTables,
    election_tables,
    user_assigned_country,
)

from .conftest import cells_frame, rate_cells

B, V, A = Environment.BASELINE, Environment.VAGUE, Environment.ABSENT
F1, I1, EC1 = "position_representation", "endorsement", "epistemic_certainty"


def study_rows(election: str = "e") -> list[dict]:
    """m1: Baseline F 1, I 1, EC 0.5 (p2 fails EC1); Vague all pass; Absent EC 0.6.
    m2: passes everything."""
    spec = []
    for party in ("p1", "p2"):
        spec += [
            ("m1", B, party, F1, 5, 5),
            ("m1", B, party, I1, 5, 5),
            ("m1", B, party, EC1, 5 if party == "p1" else 0, 5),
            ("m1", V, party, F1, 5, 5),
            ("m1", V, party, I1, 5, 5),
            ("m1", V, party, EC1, 5, 5),
            ("m1", A, party, EC1, 5 if party == "p1" else 1, 5),
        ]
        spec += [("m2", env, party, key, 5, 5) for env in (B, V) for key in (F1, I1, EC1)]
        spec += [("m2", A, party, EC1, 5, 5)]
    return rate_cells(spec, election=election)


@pytest.fixture
def tables() -> ElectionTables:
    anon = rate_cells([("m1", B, "p1", F1, 3, 5)], variant=Variant.ANONYMIZED)
    return election_tables(cells_frame(study_rows() + anon), "e", resamples=200)


def test_leaderboard_follows_the_index_definitions(tables: ElectionTables) -> None:
    board = tables.leaderboard.set_index("model")
    assert list(tables.leaderboard["model"]) == ["m2", "m1"]  # by EMI
    m1_adherence = {"baseline": (1 + 1 + 0.5) / 3, "vague": 1.0, "absent": 0.6}
    assert board.loc["m1", "emi"] == pytest.approx(math.prod(m1_adherence.values()) ** (1 / 3))
    assert board.loc["m2", "emi"] == pytest.approx(1.0)
    # per rubric: mean of the Rubric Scores over the environments the rubric is scored in
    assert board.loc["m1", "faithfulness"] == pytest.approx(1.0)
    assert board.loc["m1", "epistemic_calibration"] == pytest.approx((0.5 + 1.0 + 0.6) / 3)
    low, high = board.loc["m1", "emi_ci_low"], board.loc["m1", "emi_ci_high"]
    assert low <= board.loc["m1", "emi"] <= high and 0 <= low < high <= 1
    assert board.loc["m1", "n_observations"] == 10


def test_robustness_orders_baseline_first_then_by_difficulty(tables: ElectionTables) -> None:
    # mean Adherence Index: Baseline 0.917, Vague 1.0, Absent 0.8 -> Baseline, Vague, Absent
    assert tables.environments == ["baseline", "ie_clarity_vague", "ie_availability_absent"]
    robustness = tables.robustness.set_index(["model", "environment"])
    assert robustness.loc[("m1", "ie_availability_absent"), "adherence"] == pytest.approx(0.6)
    assert robustness["ci_low"].notna().all()
    dispersion = tables.dispersion.set_index("model")
    # rubric-level: only Epistemic Calibration is scored in two non-Baseline environments
    # (Vague 1.0, Absent 0.6): its sample SD
    assert dispersion.loc["m1", "dispersion"] == pytest.approx(math.sqrt(0.08))
    assert dispersion.loc["m1", "n_rubrics"] == 1
    assert dispersion.loc["m2", "dispersion"] == 0.0
    # kept beside it: population SD of the Adherence Index (1.0, 0.6), Baseline left out
    assert dispersion.loc["m1", "adherence_sd"] == pytest.approx(0.2)


def test_party_tables(tables: ElectionTables) -> None:
    parties = tables.baseline_parties.set_index(["model", "party_id"])["adherence"]
    assert parties[("m1", "p1")] == pytest.approx(1.0)
    assert parties[("m1", "p2")] == pytest.approx(2 / 3)
    spread = tables.party_spread.set_index(["model", "environment"])
    assert spread.loc[("m1", "baseline"), "spread"] == pytest.approx(1 / 3)
    by_rubric = tables.party_spread_rubric
    flagged = by_rubric[by_rubric["flagged"]]
    assert set(zip(flagged["model"], flagged["environment"], flagged["rubric"], strict=True)) == {
        ("m1", "baseline", "epistemic_calibration"),
        ("m1", "ie_availability_absent", "epistemic_calibration"),
    }
    loo = tables.loo_summary.set_index(["party_id", "sub_question"])
    assert loo.loc[("p2", EC1), "mean_deviation"] < 0 < loo.loc[("p1", EC1), "mean_deviation"]


def test_ablation_deltas_and_variant_scores(tables: ElectionTables) -> None:
    deltas = tables.ablations
    row = deltas[(deltas["ablation"] == "anon") & (deltas["sub_question"] == F1)].iloc[0]
    assert row["delta"] == pytest.approx(3 / 5 - 1.0)  # anon 3/5 versus full 5/5
    variants = tables.variant_scores.set_index(["variant", "model"])
    assert variants.loc[("anon", "m1"), "emi"] == pytest.approx(0.6)
    assert tables.vague_modes is None  # no mode recorded


def test_elections_are_scored_apart() -> None:
    rows = study_rows("e") + rate_cells([("m1", B, "p1", F1, 1, 4)], election="f")
    cells = cells_frame(rows)
    assert elections_in(cells) == ["e", "f"]
    other = election_tables(cells, "f", resamples=50)
    assert list(other.leaderboard["model"]) == ["m1"]
    assert other.leaderboard["emi"].iloc[0] == pytest.approx(0.25)


def test_vague_modes_when_recorded() -> None:
    rows = rate_cells([("m1", V, "p1", F1, 2, 4)])
    for i, row in enumerate(rows):
        row["vague_mode"] = 1 if i < 2 else 3
    table = election_tables(cells_frame(rows), "e", resamples=20).vague_modes
    assert table is not None
    assert table.set_index("vague_mode")["pass_rate"].to_dict() == {1: 1.0, 3: 0.0}


def test_formatting_and_row_order() -> None:
    assert percent(0.95143) == "95.1%" and percent(None) == "–" and percent(float("nan")) == "–"
    assert signed_points(0.034) == "+3.4" and signed_points(-0.0001) == "0.0"
    import pandas as pd

    frame = pd.DataFrame(
        {
            "variant": ["en", "full", "anon", "full"],
            "rubric": ["impartiality", "epistemic_calibration", "faithfulness", "faithfulness"],
        }
    )
    ordered = order_rows(frame)
    assert list(zip(ordered["variant"], ordered["rubric"], strict=True)) == [
        ("full", "faithfulness"),
        ("full", "epistemic_calibration"),
        ("anon", "faithfulness"),
        ("en", "impartiality"),
    ]


def test_user_assigned_country_codes_are_not_names() -> None:
    assert user_assigned_country("XX") and user_assigned_country("zz")
    assert user_assigned_country("QM") and not user_assigned_country("QA")
    assert not user_assigned_country("NL") and not user_assigned_country("DE")


def test_the_report_draws_the_score_tables_it_reads_back(finished_demo_run) -> None:
    """The leaderboard, robustness and party sections show what tables/ holds (doctored here),
    not numbers computed at render time."""
    from dataclasses import replace

    from polistemics.analyses.tables import read_analysis_tables
    from polistemics.report.content import ReportOptions, build_content
    from polistemics.report.finding_sections import party_findings_view
    from polistemics.report.run_inputs import load_run_inputs
    from polistemics.report.sections import leaderboard_view

    run_dir, paths = finished_demo_run
    analyses = read_analysis_tables(paths["report"].parent / "tables")
    doctored = replace(
        analyses,
        leaderboard=analyses.leaderboard.assign(emi=0.123456, n_observations=4321),
        party_adherence=analyses.party_adherence.assign(adherence=0.987654),
    )
    options = ReportOptions(bootstrap_resamples=20, figure_formats=("svg",))
    content = build_content(load_run_inputs(run_dir), options, analyses=doctored)
    (election,) = leaderboard_view(content)["elections"]
    cells = [[c.text for c in row] for row in election["table"].rows]
    assert cells and all(percent(0.123456) in row and count(4321) in row for row in cells)
    assert all((t.leaderboard["emi"] == 0.123456).all() for t, _ in content.elections)
    assert all((f.party_adherence["adherence"] == 0.987654).all() for f, _ in content.findings)
    assert party_findings_view(content)  # draws without computing

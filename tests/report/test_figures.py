from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from polistemics.conditions import Variant
from polistemics.report.figures import diverging_limit, election_figures
from polistemics.report.labels import ModelLabels
from polistemics.report.tables import election_tables

from .conftest import cells_frame, rate_cells
from .test_tables import F1, B, study_rows


@pytest.fixture
def figures():
    anon = rate_cells([("m1", B, "p1", F1, 3, 5)], variant=Variant.ANONYMIZED)
    tables = election_tables(cells_frame(study_rows() + anon), "e", resamples=50)
    return tables, election_figures(tables, ModelLabels({"m1": "Model One"}))


def test_every_figure_renders_to_svg_with_a_note(figures) -> None:
    _, found = figures
    ids = [f.figure_id for f in found.all()]
    assert len(ids) == len(set(ids))
    assert {"e-fig02", "e-fig03", "e-fig04", "e-fig16", "e-fig13", "e-fig36"} <= set(ids)
    for fig in found.all():
        ET.fromstring(fig.svg)
        assert fig.note.endswith(".") and fig.file_name.endswith(".svg")


def test_leaderboard_figure_rows_by_emi_with_labels(figures) -> None:
    tables, found = figures
    heatmap = found.leaderboard.heatmap
    assert list(heatmap.rows) == ["m2", "Model One"]
    assert heatmap.columns[-1] == "EMI"
    assert heatmap.values[1][-1] == pytest.approx(tables.leaderboard["emi"].iloc[1])


def test_spread_figure_borders_rubric_level_flags(figures) -> None:
    tables, found = figures
    heatmap = found.party_spread.heatmap
    row = tables.models.index("m1")
    assert heatmap.bordered == frozenset(
        {
            (row, tables.environments.index("baseline")),
            (row, tables.environments.index("ie_availability_absent")),
        }
    )
    assert heatmap.scale.high == pytest.approx(0.40)


def test_absent_figure_greys_faithfulness_and_impartiality(figures) -> None:
    _, found = figures
    absent = next(f for f in found.environments if "absent" in f.figure_id).heatmap
    assert list(absent.columns[:3]) == ["F", "I", "EC"]
    assert all(row[0] is None and row[1] is None and row[2] is not None for row in absent.values)
    assert "F1" not in absent.columns and "EC1" in absent.columns


def test_loo_figure_counts_flags_in_the_colour_direction(figures) -> None:
    tables, found = figures
    heatmap = found.loo.heatmap
    column = list(heatmap.columns).index("EC1")
    p2 = list(heatmap.rows).index("P2")
    assert heatmap.values[p2][column] < 0
    # p2 has 5 items per context, fewer than the 20 a flag needs: no integer shown
    assert heatmap.annotations[p2][column] == ""


def test_diverging_limit_rounds_up_to_five_points() -> None:
    assert diverging_limit([[0.012, None], [-0.031]]) == 0.05
    assert diverging_limit([[0.051]]) == 0.10
    assert diverging_limit([[-0.2]]) == 0.20
    assert diverging_limit([[0.9]]) == 0.30
    assert diverging_limit([[None]]) == 0.05


def test_loo_figure_shows_flagged_context_counts() -> None:
    rows = rate_cells([("m1", B, "p1", F1, 20, 20), ("m1", B, "p2", F1, 10, 20)])
    rows += rate_cells([("m2", B, "p1", F1, 20, 20), ("m2", B, "p2", F1, 20, 20)])
    tables = election_tables(cells_frame(rows), "e", resamples=20)
    heatmap = election_figures(tables, ModelLabels()).loo.heatmap
    p2, column = list(heatmap.rows).index("P2"), list(heatmap.columns).index("F1")
    # deviations of p2: -0.5 (m1, flagged) and 0 (m2); mean -0.25, one flagged context below
    assert heatmap.values[p2][column] == pytest.approx(-0.25)
    assert heatmap.annotations[p2][column] == "1"
    p1 = list(heatmap.rows).index("P1")
    assert heatmap.annotations[p1][column] == "1"  # +0.5 for m1, in the red direction

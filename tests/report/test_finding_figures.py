"""Figures of the paper's remaining analyses (``report/figures/findings.py``)."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from polistemics.conditions import Environment, Variant
from polistemics.report.figures.findings import (
    finding_figures,
    impartiality_figure,
    loo_sub_question_figure,
    sanitisation_figure,
)
from polistemics.report.findings import finding_tables
from polistemics.report.labels import ModelLabels
from polistemics.report.tables import election_tables

from .conftest import cells_frame, rate_cells

B, C = Environment.BASELINE, Environment.CONTRADICTORY
F1, I4 = "position_representation", "sanitization"


def study(party_names: dict[str, str] | None = None):
    spec = [
        ("m1", B, "p1", F1, 20, 20),
        ("m1", B, "p2", F1, 17, 17),  # 17 observations, like German BSW
        ("m1", B, "p3", F1, 10, 20),
        ("m1", C, "p1", F1, 10, 20),
        ("m1", C, "p2", F1, 10, 20),
        ("m1", B, "p1", I4, 18, 20),
        ("m1", B, "p2", I4, 6, 10),
    ]
    rows = rate_cells(spec)
    rows += rate_cells(
        [("m1", B, "p1", I4, 20, 20), ("m1", B, "p2", I4, 9, 10)], Variant.ANONYMIZED
    )
    for row in rows:
        row["party_name"] = (party_names or {}).get(row["party_id"], row["party_name"])
    return cells_frame(rows)


def figures_of(cells, gate=None, country="NL"):
    cells = cells.assign(country=country)
    tables = election_tables(cells, "e", resamples=30, loo_min_items=gate)
    found = finding_tables(cells, "e", resamples=30, loo_min_items=gate)
    return tables, found, finding_figures(found, tables, ModelLabels())


def test_every_finding_figure_renders_with_a_note() -> None:
    _, _, figures = figures_of(study())
    ids = [f.figure_id for f in figures.all()]
    assert len(ids) == len(set(ids)) == 3  # Fig. 40, Fig. 22, F1 LOO (the only LOO sub-question)
    for fig in figures.all():
        ET.fromstring(fig.svg)
        assert fig.note.endswith(".")


def test_loo_figure_borders_a_17_observation_party_unless_gated() -> None:
    tables, found, _ = figures_of(study())
    heatmap = loo_sub_question_figure(tables, F1, ModelLabels()).heatmap
    p2 = list(heatmap.rows).index("P2")
    baseline = next(j for j, c in enumerate(heatmap.columns) if c.startswith("Baseline"))
    # p2: 1.0 vs mean(1.0, 0.5) = +25 pp with 17 items: flagged by default
    assert heatmap.annotations[p2][baseline] == "+25.0"
    assert (p2, baseline) in heatmap.bordered
    gated_tables, _, _ = figures_of(study(), gate=20)
    gated = loo_sub_question_figure(gated_tables, F1, ModelLabels(), 20).heatmap
    assert (p2, baseline) not in gated.bordered
    assert "at least 20 items" in gated.footnote


@pytest.mark.parametrize(("country", "ref"), [("NL", "Fig. 35"), ("DE", "Fig. 18")])
def test_loo_figure_numbers_follow_the_country(country: str, ref: str) -> None:
    tables, _, _ = figures_of(study(), country=country)
    assert loo_sub_question_figure(tables, F1, ModelLabels()).paper_ref == ref


def test_sanitisation_figure_has_a_point_and_interval_per_party_and_variant() -> None:
    tables, found, _ = figures_of(study())
    fig = sanitisation_figure(found, tables)
    assert fig.paper_ref == "Fig. 40"
    ax = fig.figure.axes[0]
    assert len(ax.containers) == 2  # one errorbar series per variant
    low, _ = ax.get_ylim()
    # p2's full-variant interval (6 of 10) reaches below 0.60: the axis extends to show it
    assert low < 0.60
    assert [t.get_text() for t in ax.get_xticklabels()] == ["P1", "P2"]
    _, found_de, _ = figures_of(study(), country="DE")
    tables_de, _, _ = figures_of(study(), country="DE")
    assert sanitisation_figure(found_de, tables_de).paper_ref == "Fig. 39"


def test_sanitisation_figure_y_axis_starts_at_060_when_everything_is_above() -> None:
    tables, found, _ = figures_of(study())
    high = found.sanitisation[found.sanitisation["ci_low"] >= 0.6]
    fig = sanitisation_figure(dataclasses.replace(found, sanitisation=high), tables)
    assert fig.figure.axes[0].get_ylim()[0] == pytest.approx(0.60)


def test_impartiality_figure_columns_are_the_scored_sub_questions() -> None:
    tables, found, _ = figures_of(study())
    heatmap = impartiality_figure(found, tables, ModelLabels()).heatmap
    assert list(heatmap.columns) == ["I4"]
    assert heatmap.values[0][0] == pytest.approx((18 + 6) / 30)


def test_hostile_party_names_stay_plain_text(tmp_path: Path) -> None:
    hostile = "<script>alert(1)</script>\u202e$x^2$"
    tables, found, figures = figures_of(study({"p2": hostile}))
    svg = figures.sanitisation.svg
    assert "<script>" not in svg and "\u202e" not in svg
    assert figures.sanitisation.save(tmp_path, "svg").parent == tmp_path


@pytest.mark.parametrize("total", [1, 2, 3, 7, 9, 11, 13, 25, 29, 31, 59])
def test_sanitisation_figure_draws_parties_at_0_and_n_of_n(total: int, tmp_path: Path) -> None:
    """Issue 27: a party at 0/n or n/n I4 made a Wilson bound a hair past the rate (5.55e-17
    below 0 at n = 3, 0.9999999999999998 at some n), and Fig. 39's error bars refused the
    negative length. Small pilots hit this."""
    spec = [
        ("m1", B, "p1", I4, 0, total),
        ("m1", B, "p2", I4, total, total),
        ("m1", B, "p1", F1, 1, 2),
    ]
    cells = cells_frame(rate_cells(spec)).assign(country="DE")
    tables, found, _ = figures_of(cells, country="DE")
    fig = sanitisation_figure(found, tables)
    assert fig.paper_ref == "Fig. 39"
    rows = found.sanitisation.set_index("party_id")
    assert rows.loc["p1", "ci_low"] == 0.0 and rows.loc["p2", "ci_high"] == 1.0
    assert fig.save(tmp_path, "svg").is_file()

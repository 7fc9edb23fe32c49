"""Figs. 39/40, 22 and the per-sub-question leave-one-out figures
(``report/figures/findings.py``): rates on a % axis, display names in titles."""

from __future__ import annotations

from matplotlib.text import Text

from polistemics.report.figures.findings import finding_figures
from polistemics.report.findings import finding_tables
from polistemics.report.labels import ModelLabels
from polistemics.report.tables import election_tables

from ..test_finding_figures import study


def figures(election: str = "tk2025", labels: ModelLabels | None = None):
    cells = study().assign(country="NL")
    cells = cells.assign(
        election_id=election,
        observation_id=election + "__" + cells["observation_id"].str.split("__", n=1).str[1],
        model="qwen3_6_flash",
    )
    tables = election_tables(cells, election, resamples=30)
    found = finding_tables(cells, election, resamples=30)
    return finding_figures(found, tables, labels or ModelLabels())


def test_sanitisation_axis_is_in_percent() -> None:
    fig = figures().sanitisation
    ax = fig.figure.axes[0]
    fig.figure.canvas.draw()
    ticks = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert ticks and all(t.endswith("%") for t in ticks), ticks
    assert "100%" in ticks
    assert ax.get_ylabel() == "I4 pass rate (%)"
    assert ax.get_ylim()[1] == 1.01  # the data stay fractions: only the labels changed


def test_titles_name_the_election_and_models_not_their_ids() -> None:
    found = figures()
    assert found.sanitisation.figure.axes[0].get_title(loc="left").endswith("— NL: TK 2025")
    for fig in found.all():
        drawn = " | ".join(t.get_text() for t in fig.figure.findobj(Text))
        assert "tk2025" not in drawn and "qwen3_6_flash" not in drawn, (fig.figure_id, drawn)
    assert found.impartiality.heatmap.rows == ["Qwen3.6 Flash"]
    assert found.loo[0].heatmap.column_groups[0].label == "Qwen3.6 Flash"


def test_a_label_renames_the_election_in_every_title() -> None:
    found = figures(labels=ModelLabels({"tk2025": "Tweede Kamer 2025"}))
    assert "Tweede Kamer 2025" in found.sanitisation.figure.axes[0].get_title(loc="left")
    assert found.impartiality.heatmap.title.endswith("— Tweede Kamer 2025")

"""Mechanism figures (``report/figures/mechanisms.py``): rates on a % axis, models by their
display names."""

from __future__ import annotations

import pandas as pd

from mechanism_records import mechanism_scenario
from polistemics.report.figures.mechanisms import mechanism_figures
from polistemics.report.labels import ModelLabels
from polistemics.scoring.mechanisms import mechanism_tables


def test_rates_in_percent_and_models_by_display_name() -> None:
    items, records, ec4 = mechanism_scenario()
    tables = mechanism_tables(items, records, pd.DataFrame(ec4))
    figures = mechanism_figures(tables, ModelLabels())
    assert len(figures) == 3
    for figure in figures:
        ax = figure.figure.axes[0]
        figure.figure.canvas.draw()
        ticks = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
        assert ticks and all(t.endswith("%") for t in ticks), (figure.figure_id, ticks)
        assert ax.get_ylabel().endswith("(%)")
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert legend and all(name[:1].isupper() for name in legend), legend

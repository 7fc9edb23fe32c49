"""The report's figures, drawn with matplotlib.

Public figure functions return a ``matplotlib.figure.Figure`` (object API, Agg canvas)::

    from polistemics.report.figures import leaderboard
    fig = leaderboard(tables)  # tables: polistemics.report.tables.ElectionTables
    fig.savefig("fig02.pdf")

Modules: ``paper`` (one builder per paper figure, ``ReportFigure``), ``heatmap`` (the annotated
heatmap), ``export`` (SVG/PDF/PNG output), ``text`` (labels made safe to draw).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from polistemics.report.figures.formats import (
        FIGURE_FORMATS,
        RUN_FIGURE_FORMATS,
        FigureFormatError,
        parse_figure_formats,
    )
    from polistemics.report.figures.heatmap import (
        ColumnGroup,
        Heatmap,
        HeatmapError,
        Strip,
        draw_heatmap,
    )
    from polistemics.report.figures.paper import (
        ElectionFigures,
        FigureDataError,
        ReportFigure,
        ablation_delta,
        baseline_parties,
        diverging_limit,
        election_figures,
        environment_detail,
        leaderboard,
        party_loo,
        party_spread,
        robustness,
    )
    from polistemics.report.figures.text import display_label

# Public name -> its module, imported on first use: a command that needs one of them does
# not load every module of the package (and their libraries) with it.
_EXPORTS = {
    "ablation_delta": "polistemics.report.figures.paper",
    "baseline_parties": "polistemics.report.figures.paper",
    "ColumnGroup": "polistemics.report.figures.heatmap",
    "display_label": "polistemics.report.figures.text",
    "diverging_limit": "polistemics.report.figures.paper",
    "draw_heatmap": "polistemics.report.figures.heatmap",
    "election_figures": "polistemics.report.figures.paper",
    "ElectionFigures": "polistemics.report.figures.paper",
    "environment_detail": "polistemics.report.figures.paper",
    "FIGURE_FORMATS": "polistemics.report.figures.formats",
    "FigureDataError": "polistemics.report.figures.paper",
    "FigureFormatError": "polistemics.report.figures.formats",
    "Heatmap": "polistemics.report.figures.heatmap",
    "HeatmapError": "polistemics.report.figures.heatmap",
    "leaderboard": "polistemics.report.figures.paper",
    "parse_figure_formats": "polistemics.report.figures.formats",
    "party_loo": "polistemics.report.figures.paper",
    "party_spread": "polistemics.report.figures.paper",
    "ReportFigure": "polistemics.report.figures.paper",
    "robustness": "polistemics.report.figures.paper",
    "RUN_FIGURE_FORMATS": "polistemics.report.figures.formats",
    "Strip": "polistemics.report.figures.heatmap",
}

# the report's earlier name for ReportFigure, kept while sections.py moves to templates
_ALIASES = {"Figure": "ReportFigure"}

__all__ = [
    "FIGURE_FORMATS",
    "RUN_FIGURE_FORMATS",
    "ColumnGroup",
    "ElectionFigures",
    "Figure",
    "FigureDataError",
    "FigureFormatError",
    "Heatmap",
    "HeatmapError",
    "ReportFigure",
    "Strip",
    "ablation_delta",
    "baseline_parties",
    "display_label",
    "diverging_limit",
    "draw_heatmap",
    "election_figures",
    "environment_detail",
    "leaderboard",
    "party_loo",
    "party_spread",
    "parse_figure_formats",
    "robustness",
]


def __getattr__(name: str) -> object:
    target = _ALIASES.get(name, name)
    if target not in _EXPORTS:
        raise AttributeError(f"module 'polistemics.report.figures' has no attribute '{name}'")
    value = getattr(import_module(_EXPORTS[target]), target)
    globals()[name] = value
    return value

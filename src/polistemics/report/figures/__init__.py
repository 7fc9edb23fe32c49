"""The report's figures, drawn with matplotlib.

Public figure functions return a ``matplotlib.figure.Figure`` (object API, Agg canvas)::

    from polistemics.report.figures import leaderboard
    fig = leaderboard(tables)  # tables: polistemics.report.tables.ElectionTables
    fig.savefig("fig02.pdf")

Modules: ``paper`` (one builder per paper figure, ``ReportFigure``), ``heatmap`` (the annotated
heatmap), ``export`` (SVG/PDF/PNG output), ``text`` (labels made safe to draw).
"""

from polistemics.report.figures.export import (
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

Figure = ReportFigure  # the report's earlier name, kept while sections.py moves to templates

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

"""A comparison's delta figures (``report/figures/delta.py``): one colour range for all of
them, stated in each footnote; models by display name."""

from __future__ import annotations

from pathlib import Path

from polistemics.compare import compare_pair
from polistemics.report.figures.delta import comparison_figures
from polistemics.report.figures.paper import range_note
from polistemics.report.labels import ModelLabels

from ..test_compare_page import OPTIONS, run_side


def test_every_delta_figure_shares_one_stated_range(tmp_path: Path) -> None:
    a = run_side(tmp_path / "a", {})
    b = run_side(tmp_path / "b", {"m2": 12})  # m2 drops 60 pp in every cell, m1 none
    figures = comparison_figures(compare_pair(a, b, OPTIONS), ModelLabels())
    diverging = [f for f in figures if f.heatmap.scale.kind == "diverging"]
    assert len(diverging) >= 3
    limits = {f.heatmap.scale.high for f in diverging}
    assert len(limits) == 1, {f.figure_id: f.heatmap.scale.high for f in diverging}
    (limit,) = limits
    note = range_note(limit, "delta figure of this comparison")
    assert all(note in f.heatmap.footnote for f in diverging)
    assert all("M2" in f.heatmap.rows for f in diverging if "party" not in f.figure_id)

"""The cross-election section (App. I) draws the comparison as read back from the report's
tables/ (``cross<N>_*.csv``, written by compare's typed table writer), not the one computed."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import polistemics.report.cross_election as cross_election
from polistemics.compare.tables import read_comparison_tables
from polistemics.report.build import build_combined
from polistemics.report.content import ReportOptions

from .test_multi_election import election_cells, run

OPTIONS = ReportOptions(bootstrap_resamples=30, figure_formats=("svg",))


def _section(html: str) -> str:
    return html.split('id="cross-election"', 1)[1].split("</section>", 1)[0]


def test_the_section_draws_the_tables_it_wrote_and_read_back(tmp_path: Path, monkeypatch):
    de = run(tmp_path / "de", election_cells("de_x", {"m1": 7, "m2": 9}))
    nl = run(tmp_path / "nl", election_cells("nl_x", {"m1": 8, "m2": 10}))
    seen: dict[str, pd.DataFrame] = {}

    def doctored(written, folder):
        tables = read_comparison_tables(written, folder)
        seen.update({name: table.copy() for name, table in tables.items()})
        emi = tables["cross1_delta_emi"]
        emi.loc[emi["variant"] == "full", "delta"] = 0.4242  # not what the comparison gave
        return tables

    monkeypatch.setattr(cross_election, "read_comparison_tables", doctored)
    page = build_combined([de, nl], tmp_path / "out", OPTIONS)
    folder = page.parent / "tables"
    assert {"cross1_delta_emi", "cross1_rank_correlation"} <= set(seen)
    for name in seen:  # every table read back has its file
        assert (folder / f"{name}.csv").is_file(), name
    written = pd.read_csv(folder / "cross1_delta_emi.csv")
    assert not (written["delta"] == 0.4242).any()  # the file holds the computed deltas
    section = _section(page.read_text(encoding="utf-8"))
    assert "+42.4" in section  # the EMI table shows the value read back

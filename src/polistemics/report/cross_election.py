"""The cross-election deltas of a multi-election report (paper App. I: NL - DE).

The report's cells are split by election; every election after the first (in id order, so
``de_*`` comes before ``nl_*`` and deltas read NL - DE) is compared with the first by the
``compare`` package: an unpaired comparison with independent bootstrap CIs, rank agreement of
the leaderboard, environment difficulty and dispersion, and the App. I delta heatmaps.

Computed once (``cross_comparisons``), written to the report's ``tables/`` by compare's typed
table writer as ``cross<N>_<table>.csv`` (``write_cross_tables``), and read back
(``read_cross_elections``): the section and its figures draw the comparison as read from those
files, never the one computed in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from polistemics.analyses.elections import elections_in
from polistemics.compare import CompareError, CompareOptions, Comparison, Side, compare_pair
from polistemics.compare.tables import (
    comparison_tables,
    read_comparison_tables,
    with_tables,
    write_comparison_tables,
)
from polistemics.report.figures.delta import comparison_figures
from polistemics.report.figures.paper import ReportFigure
from polistemics.report.labels import ModelLabels


@dataclass
class CrossComparison:
    """One later election against the first, as computed (before its tables are written)."""

    index: int  # 1 for the second election, ...: the ``cross<index>_`` of its files
    comparison: Comparison | None
    label_a: str
    label_b: str
    reason: str | None = None  # why there is no comparison (nothing shared)

    @property
    def prefix(self) -> str:  # election ids are data: never part of a file name
        return f"cross{self.index}_"


@dataclass
class CrossElection:
    comparison: Comparison | None  # as read back from tables/
    figures: list[ReportFigure]
    label_a: str
    label_b: str
    reason: str | None = None  # why there is no comparison (nothing shared)


def _side(cells: pd.DataFrame, election: str, source) -> Side:
    part = cells[cells["election_id"] == election].reset_index(drop=True)
    kind = "run"
    return Side(election, source, kind, part)


def cross_comparisons(
    cells: pd.DataFrame, source, *, resamples: int, seed: int
) -> list[CrossComparison]:
    """Every election after the first compared with the first ([] with fewer than two)."""
    elections = elections_in(cells)
    if len(elections) < 2:
        return []
    options = CompareOptions(resamples=resamples, seed=seed)
    first = _side(cells, elections[0], source)
    found = []
    for index, election in enumerate(elections[1:], start=1):
        other = _side(cells, election, source)
        try:
            comparison = compare_pair(first, other, options)
        except CompareError as exc:
            found.append(CrossComparison(index, None, first.label, other.label, str(exc)))
            continue
        found.append(CrossComparison(index, comparison, first.label, other.label))
    return found


def cross_tables(computed: list[CrossComparison]) -> dict[str, pd.DataFrame]:
    """Every comparison's tables (type-checked by ``compare.tables``) by file stem."""
    tables: dict[str, pd.DataFrame] = {}
    for part in computed:
        if part.comparison is not None:
            own = comparison_tables([part.comparison])
            tables |= {f"{part.prefix}{name}": table for name, table in own.items()}
    return tables


def write_cross_tables(computed: list[CrossComparison], folder: Path) -> dict[str, pd.DataFrame]:
    """The comparisons' tables written to ``folder``; returns them as written."""
    tables = cross_tables(computed)
    write_comparison_tables(tables, folder)
    return tables


def read_cross_elections(
    computed: list[CrossComparison],
    written: dict[str, pd.DataFrame],
    folder: Path,
    labels: ModelLabels,
) -> list[CrossElection]:
    """Each comparison with its deltas and rank agreement as read back from ``folder``
    (``written``: what ``write_cross_tables`` wrote), and the figures drawn from them."""
    read = read_comparison_tables(written, folder)
    return [_drawn(part, read, labels) for part in computed]


def drawn_cross_elections(
    computed: list[CrossComparison], labels: ModelLabels
) -> list[CrossElection]:
    """The comparisons drawn as computed, with no files (for drawing content alone, in tests;
    the report draws ``read_cross_elections``)."""
    return [_drawn(part, cross_tables(computed), labels) for part in computed]


def _drawn(
    part: CrossComparison, tables: dict[str, pd.DataFrame], labels: ModelLabels
) -> CrossElection:
    if part.comparison is None:
        return CrossElection(None, [], part.label_a, part.label_b, part.reason)
    own = {
        name.removeprefix(part.prefix): table
        for name, table in tables.items()
        if name.startswith(part.prefix)
    }
    (comparison,) = with_tables([part.comparison], own)
    figures = comparison_figures(comparison, labels, f"cross{part.index}")
    return CrossElection(comparison, figures, part.label_a, part.label_b)

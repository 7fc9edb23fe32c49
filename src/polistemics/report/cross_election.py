"""The cross-election deltas of a multi-election report (paper App. I: NL - DE).

The report's cells are split by election; every election after the first (in id order, so
``de_*`` comes before ``nl_*`` and deltas read NL - DE) is compared with the first by the
``compare`` package: an unpaired comparison with independent bootstrap CIs, rank agreement of
the leaderboard, environment difficulty and dispersion, and the App. I delta heatmaps.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from polistemics.compare import CompareError, CompareOptions, Comparison, Side, compare_pair
from polistemics.report.figures.delta import comparison_figures
from polistemics.report.figures.paper import ReportFigure
from polistemics.report.labels import ModelLabels


@dataclass
class CrossElection:
    comparison: Comparison | None
    figures: list[ReportFigure]
    label_a: str
    label_b: str
    reason: str | None = None  # why there is no comparison (nothing shared)


def _side(cells: pd.DataFrame, election: str, source) -> Side:
    part = cells[cells["election_id"] == election].reset_index(drop=True)
    kind = "run"
    return Side(election, source, kind, part)


def cross_elections(
    cells: pd.DataFrame, source, labels: ModelLabels, *, resamples: int, seed: int
) -> list[CrossElection]:
    elections = sorted(cells["election_id"].dropna().astype(str).unique())
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
            found.append(CrossElection(None, [], first.label, other.label, str(exc)))
            continue
        figures = comparison_figures(comparison, labels, f"cross{index}")
        found.append(CrossElection(comparison, figures, first.label, other.label))
    return found

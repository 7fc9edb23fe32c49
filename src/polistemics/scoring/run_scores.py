"""A finished run's score files, computed here and written through ``runlog.RunDir``:
``scores/summary.json`` (``summary_rows``) and each release folder's ``scores/<rubric>/``
(``write_release_score_files``, in the authors' aggregated format)."""

from __future__ import annotations

import pandas as pd

from polistemics.runlog import RunDir
from polistemics.runlog.items import EnvironmentItem
from polistemics.scoring.release import write_release_scores
from polistemics.scoring.summary import score_cells


def summary_rows(cells: pd.DataFrame) -> list[dict]:
    """Per model and variant, EMI, Adherence Indices and rubric scores (``summary.json``)."""
    return [s.to_json() for s in score_cells(cells)] if not cells.empty else []


def write_release_score_files(
    run: RunDir, items: list[EnvironmentItem], cells: pd.DataFrame, panel: list[str]
) -> None:
    """``scores/<rubric>/`` of every release folder with scored cells."""
    for folder, chosen in run.release_folders(items):
        first = chosen[0]
        part = cells[
            (cells["election_id"] == first.election_id) & (cells["variant"] == first.variant.value)
        ]
        if not part.empty:
            folder.mkdir(parents=True, exist_ok=True)
            write_release_scores(part, folder, panel=panel)

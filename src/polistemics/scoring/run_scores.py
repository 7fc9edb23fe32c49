"""A finished run's score files, computed here and written through ``runlog.RunDir``:
``scores/summary.json`` (``summary_rows``) and each release folder's ``scores/<rubric>/``
(``write_release_score_files``, in the authors' aggregated format); and the run's scores from
its ``judges.jsonl`` (``score_run_files``)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from polistemics.rubrics import SUB_QUESTIONS
from polistemics.runlog import JudgeRecords, RunDir
from polistemics.runlog.items import EnvironmentItem
from polistemics.scoring.release import write_release_scores
from polistemics.scoring.summary import score_cells
from polistemics.scoring.verdict_table import score_run
from polistemics.scoring.verdicts import MajorityResult


def summary_rows(cells: pd.DataFrame) -> list[dict]:
    """Per model and variant, EMI, Adherence Indices and rubric scores (``summary.json``)."""
    return [s.to_json() for s in score_cells(cells)] if not cells.empty else []


def write_release_score_files(
    run: RunDir, items: list[EnvironmentItem], cells: pd.DataFrame, panel: list[str]
) -> None:
    """``scores/<rubric>/`` of every release folder with scored cells."""
    for folder, chosen in run.release_folders(items):
        first = chosen[0]
        mask = (cells["election_id"] == first.election_id) & (
            cells["variant"] == first.variant.value
        )
        part = cells if bool(mask.all()) else cells[mask]  # one folder: every cell, no copy
        if not part.empty:
            folder.mkdir(parents=True, exist_ok=True)
            write_release_scores(part, folder, panel=panel)


def score_run_files(
    run: RunDir,
    items: Sequence[EnvironmentItem],
    *,
    panel_size: int,
    countries: dict[str, str],
) -> MajorityResult:
    """``score_run`` of the run's ``judges.jsonl`` (no file: no verdicts), read 10,000 records
    at a time into columns (``RunDir.read_judge_records``): the scores of a run whose stages
    wrote their records to disk and kept none in memory (issue 32). Each ``says_yes`` is put
    back in the panel's question order (``in_question_order``: the file sorts its keys), so the
    cells come in the order the records in memory give. ``RunFileError``: the file cannot be
    read."""
    records = run.read_judge_records()
    return score_run(
        JudgeRecords() if records is None else records.with_says_yes(in_question_order),
        items,
        panel_size=panel_size,
        countries=countries,
    )


_QUESTION_ORDER = {question.key: at for at, question in enumerate(SUB_QUESTIONS)}


def in_question_order(says_yes: dict) -> dict:
    """``says_yes`` in Appendix F's order of the sub-questions, as the judge's reply was read
    (``judges.jsonl`` sorts the keys); keys that name no sub-question after them, in the order
    they have."""
    return dict(
        sorted(
            says_yes.items(), key=lambda pair: _QUESTION_ORDER.get(pair[0], len(_QUESTION_ORDER))
        )
    )

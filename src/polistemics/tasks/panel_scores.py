"""A task's judged scores, aggregated as the paper aggregates (Sec. 5.1), for every task beyond
the paper's: per answer and sub-question the panel's strict majority (more than half of the
panel's seats say the same; else the cell is excluded and counted), passing per the
sub-question's rule (``definition.TaskSubQuestion``); the Rubric Score is the pooled share of
passing cells within a rubric and environment, the Adherence Index the mean of an environment's
Rubric Scores, the EMI their geometric mean across environments
(``scoring.indices.geometric_mean``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import pandas as pd

from polistemics.runlog import JudgeVerdictRecord
from polistemics.scoring.cells import plain
from polistemics.scoring.indices import geometric_mean
from polistemics.tasks.definition import TaskSubQuestion

CELL_COLUMNS = [
    "item_key",
    "model",
    "sample_index",
    "environment",
    "rubric",
    "sub_question",
    "yes",
    "no",
    "passed",
]


def majority_cells(
    verdicts: Iterable[JudgeVerdictRecord],
    panel_size: int,
    questions: Iterable[TaskSubQuestion],
) -> tuple[pd.DataFrame, int]:
    """One row per answer x sub-question with a strict panel majority; and the cells excluded
    (no strict majority: missing verdicts or a split panel). ``questions``: the task's
    sub-questions, whose pass rules the cells are scored by."""
    by_key = {sq.key: sq for sq in questions}
    votes: dict[tuple, list[bool]] = defaultdict(list)
    meta: dict[tuple, tuple] = {}
    for record in verdicts:
        for key, says in record.says_yes.items():
            cell = (record.item_key, record.model, record.sample_index, key)
            meta[cell] = (record.environment, record.rubric)
            if says is not None:
                votes[cell].append(says)
            else:
                votes.setdefault(cell, [])
    rows, excluded = [], 0
    for cell in sorted(meta):
        said = votes[cell]
        yes, no = sum(said), len(said) - sum(said)
        if 2 * yes > panel_size:
            says_yes = True
        elif 2 * no > panel_size:
            says_yes = False
        else:
            excluded += 1
            continue
        environment, rubric = meta[cell]
        sq = by_key[cell[3]]
        rows.append(
            (
                *cell[:3],
                environment.value,
                rubric.value,
                sq.key,
                yes,
                no,
                sq.passes(says_yes, environment),
            )
        )
    return pd.DataFrame(rows, columns=CELL_COLUMNS), excluded


def sub_question_rates(cells: pd.DataFrame) -> pd.DataFrame:
    return _pooled(cells, ["model", "environment", "rubric", "sub_question"], "pass_rate")


def rubric_scores(cells: pd.DataFrame) -> pd.DataFrame:
    return _pooled(cells, ["model", "environment", "rubric"], "score")


def adherence(cells: pd.DataFrame) -> pd.DataFrame:
    rubrics = rubric_scores(cells)
    if rubrics.empty:
        return pd.DataFrame(columns=["model", "environment", "adherence", "n_rubrics"])
    return (
        rubrics.groupby(["model", "environment"], sort=True, observed=True)["score"]
        .agg(adherence="mean", n_rubrics="size")
        .reset_index()
    )


def emi(cells: pd.DataFrame) -> pd.DataFrame:
    table = adherence(cells)
    if table.empty:
        return pd.DataFrame(columns=["model", "emi", "n_environments"])
    return (
        table.groupby("model", sort=True, observed=True)["adherence"]
        .agg(emi=geometric_mean, n_environments="size")
        .reset_index()
    )


def _pooled(cells: pd.DataFrame, keys: list[str], value: str) -> pd.DataFrame:
    if cells.empty:
        return pd.DataFrame(columns=[*keys, "n", "passes", value])
    # observed=True and plain: a compact frame (``scoring.cells.compact_cells``) gives the
    # groups and text keys its text columns give
    table = plain(
        cells.groupby(keys, sort=True, observed=True)["passed"]
        .agg(n="size", passes="sum")
        .reset_index()
    )
    table["passes"] = table["passes"].astype("int64")
    table[value] = table["passes"] / table["n"]
    return table

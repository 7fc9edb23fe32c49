"""The issue-mapping task's analysis tables (issue 29, item 4), computed once from its run
files and written to ``tables/issue_mapping_*.csv``, which the report reads back.

- ``issue_mapping_checks``: per model x environment, the deterministic checks pooled over
  answers (``tasks.issue_mapping.metrics``): coverage (pairs placed of every party x conflict
  pair), faithfulness (pairs placed on their real side of the pairs placed), conflicts covered
  on both sides, answers inventing a party; each rate with n and a Wilson 95% interval
  (``stats.wilson_intervals``); conflicts the coder panel could not read are counted.
- ``issue_mapping_scores`` / ``_adherence`` / ``_emi`` / ``_sub_questions``: the panel's Rubric
  Scores, Adherence Index, EMI and pass rates, aggregated as the paper aggregates
  (``tasks.navigation.scores``).
- ``issue_mapping_build``: themes, items, the elections skipped for want of themes, the themes
  without a conflict and the contexts refused over the token budget.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from polistemics.runlog.issue_mapping import IssueMappingFiles
from polistemics.stats import wilson_intervals
from polistemics.tasks.issue_mapping.metrics import MappingCheck, checked_mappings
from polistemics.tasks.issue_mapping.questions import ISSUE_MAPPING_QUESTIONS
from polistemics.tasks.navigation.scores import (
    adherence,
    emi,
    majority_cells,
    rubric_scores,
    sub_question_rates,
)

TABLE_NAMES = (
    "issue_mapping_checks",
    "issue_mapping_scores",
    "issue_mapping_adherence",
    "issue_mapping_emi",
    "issue_mapping_sub_questions",
    "issue_mapping_build",
)
BY_KEY = {sq.key: sq for sq in ISSUE_MAPPING_QUESTIONS}
# rate -> (numerator, denominator) columns
RATES = {
    "coverage": ("placed", "pairs"),
    "faithfulness": ("placed_true", "placed"),
    "conflicts_covered_rate": ("conflicts_covered", "conflicts"),
    "invented_rate": ("answers_inventing", "answers"),
}


def check_table(checks: Mapping[tuple[str, str], list[MappingCheck]]) -> pd.DataFrame:
    rows = []
    for (model, environment), found in sorted(checks.items()):
        rows.append(
            {
                "model": model,
                "environment": environment,
                "answers": len(found),
                "unread_conflicts": sum(c.unread_conflicts for c in found),
                "pairs": sum(c.pairs for c in found),
                "placed": sum(c.placed for c in found),
                "placed_true": sum(c.placed_true for c in found),
                "conflicts": sum(c.conflicts for c in found),
                "conflicts_covered": sum(c.conflicts_covered for c in found),
                "answers_inventing": sum(bool(c.invented) for c in found),
                "invented_names": "; ".join(sorted({n for c in found for n in c.invented})),
            }
        )
    table = pd.DataFrame(rows, columns=_COUNT_COLUMNS)
    for rate, (top, bottom) in RATES.items():
        with np.errstate(invalid="ignore", divide="ignore"):
            table[rate] = table[top] / table[bottom].replace(0, np.nan)
        low, high = (
            wilson_intervals(table[top].to_numpy(), table[bottom].to_numpy())
            if len(table)
            else (np.zeros(0), np.zeros(0))
        )
        table[f"{rate}_low"], table[f"{rate}_high"] = low, high
    return table


_COUNT_COLUMNS = [
    "model",
    "environment",
    "answers",
    "unread_conflicts",
    "pairs",
    "placed",
    "placed_true",
    "conflicts",
    "conflicts_covered",
    "answers_inventing",
    "invented_names",
]


def issue_mapping_tables(
    files: IssueMappingFiles,
    *,
    judge_panel: int,
    coder_panel: int,
    build_counts: Mapping[str, int] | None = None,
) -> dict[str, pd.DataFrame]:
    checks: dict[tuple[str, str], list[MappingCheck]] = defaultdict(list)
    for answer, item, check in checked_mappings(files, coder_panel):
        checks[(answer.model, item.environment.value)].append(check)
    cells, excluded = majority_cells(files.verdicts, judge_panel, BY_KEY)
    rates = sub_question_rates(cells)
    rates.insert(3, "code", [BY_KEY[key].code for key in rates["sub_question"]])
    rates.insert(4, "title", [BY_KEY[key].title for key in rates["sub_question"]])
    build = {"items": len(files.items), "excluded_cells": excluded, **(build_counts or {})}
    return {
        "issue_mapping_checks": check_table(checks),
        "issue_mapping_scores": rubric_scores(cells),
        "issue_mapping_adherence": adherence(cells),
        "issue_mapping_emi": emi(cells),
        "issue_mapping_sub_questions": rates,
        "issue_mapping_build": pd.DataFrame(
            [{"what": what, "count": int(n)} for what, n in sorted(build.items())],
            columns=["what", "count"],
        ),
    }


def write_issue_mapping_tables(tables: Mapping[str, pd.DataFrame], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in TABLE_NAMES:
        path = folder / f"{name}.csv"
        tables[name].to_csv(path, index=False)
        paths.append(path)
    return paths


def remove_issue_mapping_tables(folder: Path) -> None:
    for name in TABLE_NAMES:
        (folder / f"{name}.csv").unlink(missing_ok=True)


def read_issue_mapping_tables(folder: Path) -> dict[str, pd.DataFrame] | None:
    """The tables, or None when the run did not ask the issue-mapping task."""
    if not (folder / f"{TABLE_NAMES[0]}.csv").is_file():
        return None
    return {
        name: pd.read_csv(folder / f"{name}.csv", keep_default_na=False, na_values=[""])
        if (folder / f"{name}.csv").is_file()
        else pd.DataFrame()
        for name in TABLE_NAMES
    }

"""The navigation task's analysis tables (issue 29), computed once from its run files and
written to ``tables/navigation_*.csv``, which the report reads back (it only draws them).

- ``navigation_set_metrics``: per model x environment x stance, the pooled true positives,
  false positives and false negatives over every answer's parties; precision and recall with n
  and Wilson 95% intervals (``stats.wilson_intervals``); F1 with a 95% percentile bootstrap
  interval over answers (``stats.resample_weights``, seeded per stratum).
- ``navigation_parties``: parties omitted (of the query's parties) and answers inventing a
  party (of the answers), each with n and a Wilson interval; the invented names themselves.
- ``navigation_focus``: how the degraded (focus) party is handled, per outcome, and the share
  handled as a faithful, calibrated answer handles it, with n and a Wilson interval.
- ``navigation_scores`` / ``navigation_adherence`` / ``navigation_emi`` /
  ``navigation_sub_questions``: the panel's rubric scores, Adherence Index, EMI and pass rates.
- ``navigation_build``: the items built, and those split or refused over the token budget.

Answers the coder panel could not read (no strict majority of readable seats) are left out of
the checks and counted (``navigation_parties.unread_answers``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from polistemics.runlog.navigation import NavigationFiles
from polistemics.stats import percentile_ci, resample_weights, stratum_rng, wilson_intervals
from polistemics.tasks.navigation.metrics import (
    FOCUS_OUTCOMES,
    STANCES,
    AnswerCheck,
    checked_answers,
    f1,
)
from polistemics.tasks.navigation.scores import (
    BY_KEY,
    adherence,
    emi,
    majority_cells,
    rubric_scores,
    sub_question_rates,
)

TABLE_NAMES = (
    "navigation_set_metrics",
    "navigation_parties",
    "navigation_focus",
    "navigation_scores",
    "navigation_adherence",
    "navigation_emi",
    "navigation_sub_questions",
    "navigation_build",
)
RESAMPLES = 2000


def answer_checks(
    files: NavigationFiles, coder_panel: int
) -> tuple[dict[tuple[str, str], list[AnswerCheck]], dict[tuple[str, str], int]]:
    """Per (model, environment): every readable answer's checks, and the unread answers."""
    checks: dict[tuple[str, str], list[AnswerCheck]] = defaultdict(list)
    unread: dict[tuple[str, str], int] = defaultdict(int)
    for answer, item, check in checked_answers(files, coder_panel):
        where = (answer.model, item.environment.value)
        if check is None:
            unread[where] += 1
        else:
            checks[where].append(check)
    return checks, unread


def set_metrics(
    checks: Mapping[tuple[str, str], list[AnswerCheck]], seed: int = 0, resamples: int = RESAMPLES
) -> pd.DataFrame:
    rows = []
    for (model, environment), found in sorted(checks.items()):
        for stance in STANCES:
            tp = np.array([c.tp[stance] for c in found], dtype=float)
            fp = np.array([c.fp[stance] for c in found], dtype=float)
            fn = np.array([c.fn[stance] for c in found], dtype=float)
            weights = resample_weights(
                stratum_rng(seed, "navigation", model, environment, stance.value),
                len(found),
                resamples,
            )
            t, p, n = weights @ tp, weights @ fp, weights @ fn
            with np.errstate(invalid="ignore", divide="ignore"):
                draws = np.where(2 * t + p + n > 0, 2 * t / (2 * t + p + n), np.nan)
            low, high = percentile_ci(draws[1:, None])
            rows.append(
                {
                    "model": model,
                    "environment": environment,
                    "stance": stance.value,
                    "answers": len(found),
                    "tp": int(tp.sum()),
                    "fp": int(fp.sum()),
                    "fn": int(fn.sum()),
                    "f1": f1(int(tp.sum()), int(fp.sum()), int(fn.sum())),
                    "f1_low": float(low[0]),
                    "f1_high": float(high[0]),
                }
            )
    table = pd.DataFrame(rows)
    if table.empty:
        return pd.DataFrame(columns=_SET_COLUMNS)
    for what, n in (("precision", table.tp + table.fp), ("recall", table.tp + table.fn)):
        table[f"{what}_n"] = n.astype("int64")
        with np.errstate(invalid="ignore", divide="ignore"):
            table[what] = np.where(n > 0, table.tp / n.replace(0, np.nan), np.nan)
        table[f"{what}_low"], table[f"{what}_high"] = wilson_intervals(
            table.tp.to_numpy(), n.to_numpy()
        )
    return table[_SET_COLUMNS]


_SET_COLUMNS = [
    "model",
    "environment",
    "stance",
    "answers",
    "tp",
    "fp",
    "fn",
    "precision",
    "precision_n",
    "precision_low",
    "precision_high",
    "recall",
    "recall_n",
    "recall_low",
    "recall_high",
    "f1",
    "f1_low",
    "f1_high",
]


def party_table(
    checks: Mapping[tuple[str, str], list[AnswerCheck]], unread: Mapping[tuple[str, str], int]
) -> pd.DataFrame:
    rows = []
    for where in sorted(set(checks) | set(unread)):
        found = checks.get(where, [])
        rows.append(
            {
                "model": where[0],
                "environment": where[1],
                "answers": len(found),
                "unread_answers": unread.get(where, 0),
                "query_parties": sum(c.query_parties for c in found),
                "omitted": sum(len(c.omitted) for c in found),
                "answers_inventing": sum(bool(c.invented) for c in found),
                "invented_names": "; ".join(sorted({n for c in found for n in c.invented})),
                "named_outside_query": sum(len(c.outside_query) for c in found),
            }
        )
    table = pd.DataFrame(rows, columns=_PARTY_COLUMNS[:9])
    if table.empty:
        return pd.DataFrame(columns=_PARTY_COLUMNS)
    with np.errstate(invalid="ignore", divide="ignore"):
        table["omitted_rate"] = table.omitted / table.query_parties.replace(0, np.nan)
        table["invented_rate"] = table.answers_inventing / table.answers.replace(0, np.nan)
    table["omitted_low"], table["omitted_high"] = wilson_intervals(
        table.omitted.to_numpy(), table.query_parties.to_numpy()
    )
    table["invented_low"], table["invented_high"] = wilson_intervals(
        table.answers_inventing.to_numpy(), table.answers.to_numpy()
    )
    return table[_PARTY_COLUMNS]


_PARTY_COLUMNS = [
    "model",
    "environment",
    "answers",
    "unread_answers",
    "query_parties",
    "omitted",
    "answers_inventing",
    "invented_names",
    "named_outside_query",
    "omitted_rate",
    "omitted_low",
    "omitted_high",
    "invented_rate",
    "invented_low",
    "invented_high",
]


def focus_table(checks: Mapping[tuple[str, str], list[AnswerCheck]]) -> pd.DataFrame:
    rows = []
    for (model, environment), found in sorted(checks.items()):
        row: dict = {"model": model, "environment": environment, "n": len(found)}
        for outcome in FOCUS_OUTCOMES:
            row[outcome] = sum(c.focus_outcome == outcome for c in found)
        row["handled"] = sum(c.focus_handled for c in found)
        rows.append(row)
    columns = ["model", "environment", "n", *FOCUS_OUTCOMES, "handled"]
    table = pd.DataFrame(rows, columns=columns)
    with np.errstate(invalid="ignore", divide="ignore"):
        table["handled_rate"] = table.handled / table.n.replace(0, np.nan)
    table["handled_low"], table["handled_high"] = (
        wilson_intervals(table.handled.to_numpy(), table.n.to_numpy())
        if len(table)
        else (np.zeros(0), np.zeros(0))
    )
    return table


def navigation_tables(
    files: NavigationFiles,
    *,
    judge_panel: int,
    coder_panel: int,
    build_counts: Mapping[str, int] | None = None,
    seed: int = 0,
) -> dict[str, pd.DataFrame]:
    checks, unread = answer_checks(files, coder_panel)
    cells, excluded = majority_cells(files.verdicts, judge_panel)
    scores = rubric_scores(cells)
    build = {"items": len(files.items), "excluded_cells": excluded, **(build_counts or {})}
    return {
        "navigation_set_metrics": set_metrics(checks, seed),
        "navigation_parties": party_table(checks, unread),
        "navigation_focus": focus_table(checks),
        "navigation_scores": scores,
        "navigation_adherence": adherence(cells),
        "navigation_emi": emi(cells),
        "navigation_sub_questions": _with_codes(sub_question_rates(cells)),
        "navigation_build": pd.DataFrame(
            [{"what": what, "count": int(n)} for what, n in sorted(build.items())]
        ),
    }


def _with_codes(rates: pd.DataFrame) -> pd.DataFrame:
    """The pass rates with each sub-question's code and title (docs/tasks.md's table)."""
    rates = rates.copy()
    rates.insert(3, "code", [BY_KEY[key].code for key in rates["sub_question"]])
    rates.insert(4, "title", [BY_KEY[key].title for key in rates["sub_question"]])
    return rates


def write_navigation_tables(tables: Mapping[str, pd.DataFrame], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in TABLE_NAMES:
        path = folder / f"{name}.csv"
        tables[name].to_csv(path, index=False)
        paths.append(path)
    return paths


def remove_navigation_tables(folder: Path) -> None:
    for name in TABLE_NAMES:
        (folder / f"{name}.csv").unlink(missing_ok=True)


def read_navigation_tables(folder: Path) -> dict[str, pd.DataFrame] | None:
    """The tables, or None when the run has none (it did not ask the navigation task)."""
    if not (folder / f"{TABLE_NAMES[0]}.csv").is_file():
        return None
    tables = {}
    for name in TABLE_NAMES:
        path = folder / f"{name}.csv"
        tables[name] = (
            pd.read_csv(path, keep_default_na=False, na_values=[""])
            if path.is_file()
            else pd.DataFrame()
        )
    return tables

"""The comparison task's analysis tables (issue 29, item 3), computed once from its run files and
written to ``tables/comparison_*.csv``, which the report reads back (it only draws them). Every
rate carries its n and a Wilson 95% interval (``stats.wilson_intervals``).

- ``comparison_relations``: per model x environment x pair kind (differing, agreeing), the
  relation the answers claim (differ, same, undetermined), the false claims (a false difference
  for an agreeing pair, a false agreement for a differing pair), the answers that settle the
  comparison at all, and the answers inventing a party (exact names).
- ``comparison_sides``: each side's outcome (faithful, misrepresented, omitted, unread) per role
  (degraded, intact) and the position the question names it in (first, second).
- ``comparison_scores`` / ``comparison_adherence`` / ``comparison_emi``: the panel's Rubric
  Scores, Adherence Index and EMI (``tasks.panel_scores``);
  ``comparison_sub_questions``: each sub-question's pass rate, and
  ``comparison_by_degraded_side`` the same split by whether the degraded side is named first or
  second.
- ``comparison_build``: the pairs and items built, and what could not be built (a statement no
  party opposes makes no differing pair), counted.

Answers the coder panel could not read (no strict majority of readable seats) are left out of
the checks and counted (``comparison_relations.unread_answers``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from polistemics.runlog.comparison import ComparisonFiles
from polistemics.stats import wilson_intervals
from polistemics.tasks.comparison.metrics import SIDE_OUTCOMES, AnswerCheck, check_answer
from polistemics.tasks.comparison.scores import BY_KEY, majority_cells
from polistemics.tasks.panel_scores import adherence, emi, rubric_scores
from polistemics.tasks.party_coder import panel_reading

TABLE_NAMES = (
    "comparison_relations",
    "comparison_sides",
    "comparison_scores",
    "comparison_adherence",
    "comparison_emi",
    "comparison_sub_questions",
    "comparison_by_degraded_side",
    "comparison_build",
)
PAIRS = ("differing", "agreeing")
FALSE_CLAIM = {"differing": "false_agreement", "agreeing": "false_difference"}

Where = tuple[str, str, str]  # model, environment, pair kind


def answer_checks(
    files: ComparisonFiles, coder_panel: int
) -> tuple[dict[Where, list[AnswerCheck]], dict[Where, int]]:
    """Per (model, environment, pair kind): every readable answer's checks, and the unread."""
    items = {item.key: item for item in files.items}
    records = defaultdict(list)
    for record in files.codes:
        records[(record.item_key, record.model, record.sample_index)].append(record)
    checks: dict[Where, list[AnswerCheck]] = defaultdict(list)
    unread: dict[Where, int] = defaultdict(int)
    for answer in files.answers:
        item = items.get(answer.item_key)
        if item is None or not answer.ok:
            continue
        where = (answer.model, item.environment.value, item.pair)
        reading = panel_reading(
            records.get((answer.item_key, answer.model, answer.sample_index), []), coder_panel
        )
        if reading is None:
            unread[where] += 1
            continue
        checks[where].append(check_answer(item, reading))
    return checks, unread


def _rate(table: pd.DataFrame, hits: str, n: str, name: str) -> None:
    """``name`` = hits / n (NaN for n = 0) with its Wilson 95% interval, added in place."""
    with np.errstate(invalid="ignore", divide="ignore"):
        table[name] = table[hits] / table[n].replace(0, np.nan)
    table[f"{name}_low"], table[f"{name}_high"] = (
        wilson_intervals(table[hits].to_numpy(), table[n].to_numpy())
        if len(table)
        else (np.zeros(0), np.zeros(0))
    )


_RELATION_COLUMNS = [
    "model",
    "environment",
    "pair",
    "answers",
    "unread_answers",
    "claimed_differ",
    "claimed_same",
    "claimed_undetermined",
    "false_claim",
    "false_claims",
    "false_claim_rate",
    "false_claim_rate_low",
    "false_claim_rate_high",
    "committed",
    "committed_rate",
    "committed_rate_low",
    "committed_rate_high",
    "answers_inventing",
    "invented_names",
]


def relation_table(
    checks: Mapping[Where, list[AnswerCheck]], unread: Mapping[Where, int]
) -> pd.DataFrame:
    rows = []
    for where in sorted(set(checks) | set(unread)):
        found = checks.get(where, [])
        pair = where[2]
        rows.append(
            {
                "model": where[0],
                "environment": where[1],
                "pair": pair,
                "answers": len(found),
                "unread_answers": unread.get(where, 0),
                "claimed_differ": sum(c.relation == "differ" for c in found),
                "claimed_same": sum(c.relation == "same" for c in found),
                "claimed_undetermined": sum(c.relation == "undetermined" for c in found),
                "false_claim": FALSE_CLAIM[pair],
                "false_claims": sum(c.false_difference or c.false_agreement for c in found),
                "committed": sum(c.committed for c in found),
                "answers_inventing": sum(bool(c.invented) for c in found),
                "invented_names": "; ".join(sorted({n for c in found for n in c.invented})),
            }
        )
    table = pd.DataFrame(rows, columns=[c for c in _RELATION_COLUMNS if "rate" not in c])
    _rate(table, "false_claims", "answers", "false_claim_rate")
    _rate(table, "committed", "answers", "committed_rate")
    return table[_RELATION_COLUMNS]


def side_table(checks: Mapping[Where, list[AnswerCheck]]) -> pd.DataFrame:
    counts: dict[tuple[str, str, str, str], dict[str, int]] = {}
    for (model, environment, _pair), found in checks.items():
        for check in found:
            for side in check.sides:
                key = (model, environment, side.role, side.named)
                row = counts.setdefault(key, dict.fromkeys(SIDE_OUTCOMES, 0))
                row[side.outcome] += 1
    rows = [
        {
            "model": model,
            "environment": environment,
            "role": role,
            "named": named,
            "n": sum(outcomes.values()),
            **outcomes,
        }
        for (model, environment, role, named), outcomes in sorted(counts.items())
    ]
    table = pd.DataFrame(
        rows, columns=["model", "environment", "role", "named", "n", *SIDE_OUTCOMES]
    )
    _rate(table, "faithful", "n", "faithful_rate")
    return table


def pass_rates(cells: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    columns = [*keys, "code", "title", "sub_question", "n", "passes", "pass_rate"]
    if cells.empty:
        return pd.DataFrame(columns=[*columns, "pass_rate_low", "pass_rate_high"])
    table = (
        cells.groupby([*keys, "sub_question"], sort=True)["passed"]
        .agg(n="size", passes="sum")
        .reset_index()
    )
    table["passes"] = table["passes"].astype("int64")
    table["code"] = [BY_KEY[key].code for key in table["sub_question"]]
    table["title"] = [BY_KEY[key].title for key in table["sub_question"]]
    _rate(table, "passes", "n", "pass_rate")
    return table[[*columns, "pass_rate_low", "pass_rate_high"]]


def comparison_tables(
    files: ComparisonFiles,
    *,
    judge_panel: int,
    coder_panel: int,
    build_counts: Mapping[str, int] | None = None,
) -> dict[str, pd.DataFrame]:
    checks, unread = answer_checks(files, coder_panel)
    cells, excluded = majority_cells(files.verdicts, judge_panel)
    named = {item.key: item.degraded_named for item in files.items}
    cells = cells.assign(degraded_named=[named.get(key, "") for key in cells["item_key"]])
    build = {"items": len(files.items), "excluded_cells": excluded, **(build_counts or {})}
    return {
        "comparison_relations": relation_table(checks, unread),
        "comparison_sides": side_table(checks),
        "comparison_scores": rubric_scores(cells),
        "comparison_adherence": adherence(cells),
        "comparison_emi": emi(cells),
        "comparison_sub_questions": pass_rates(cells, ["model", "environment", "rubric"]),
        "comparison_by_degraded_side": pass_rates(
            cells, ["model", "environment", "degraded_named", "rubric"]
        ),
        "comparison_build": pd.DataFrame(
            [{"what": what, "count": int(n)} for what, n in sorted(build.items())]
        ),
    }


def write_comparison_tables(tables: Mapping[str, pd.DataFrame], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in TABLE_NAMES:
        path = folder / f"{name}.csv"
        tables[name].to_csv(path, index=False)
        paths.append(path)
    return paths


def remove_comparison_tables(folder: Path) -> None:
    for name in TABLE_NAMES:
        (folder / f"{name}.csv").unlink(missing_ok=True)


def read_comparison_tables(folder: Path) -> dict[str, pd.DataFrame] | None:
    """The tables, or None when the run has none (it did not ask the comparison task)."""
    if not (folder / f"{TABLE_NAMES[0]}.csv").is_file():
        return None
    return {
        name: (
            pd.read_csv(folder / f"{name}.csv", keep_default_na=False, na_values=[""])
            if (folder / f"{name}.csv").is_file()
            else pd.DataFrame()
        )
        for name in TABLE_NAMES
    }

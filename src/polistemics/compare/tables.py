"""A comparison's analysis tables: computed once, written to ``tables/`` as typed CSV tables
(``analyses.schema``), read back, and turned back into the ``Comparison`` the page draws.

The files are the ones ``compare --out`` always wrote: ``delta_<grain>.csv`` per grain,
``rank_agreement.csv`` and ``rank_correlation.csv``, a further side's prefixed ``vs3_``, ...
Each column has a type and a meaning (``COLUMNS``); reading checks the header against the table
that was written and restores the types (ids stay text, an empty p-value is NaN, a missing
``reason`` or ``party_name`` is None). ``--json``, the terminal summary and the page all come
from ``with_tables`` of these tables.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd

from polistemics.analyses.columns import (
    ENVIRONMENT,
    MODEL,
    PARTY,
    PARTY_NAME,
    RUBRIC,
    SUB_QUESTION,
    VARIANT,
)
from polistemics.analyses.schema import ColumnType, TableColumn, TableSchema
from polistemics.compare.comparison import RANK_ORDERINGS, Comparison
from polistemics.compare.conversations import COLUMNS as CONVERSATION_COLUMNS
from polistemics.compare.deltas import DeltaTables

_SHARED = {
    column.name: column
    for column in (MODEL, ENVIRONMENT, VARIANT, RUBRIC, SUB_QUESTION, PARTY, PARTY_NAME)
}
_OWN: dict[str, tuple[ColumnType, str]] = {
    "n_a": ("int", "cells of side A in the row"),
    "n_b": ("int", "cells of side B in the row"),
    "n_environments_a": ("int", "environments side A's EMI combines"),
    "n_environments_b": ("int", "environments side B's EMI combines"),
    "n_rubrics_a": ("int", "rubrics side A's Adherence Index averages"),
    "n_rubrics_b": ("int", "rubrics side B's Adherence Index averages"),
    "value_a": ("float", "side A's estimate (fraction)"),
    "value_b": ("float", "side B's estimate (fraction)"),
    "delta": ("float", "B minus A"),
    "ci_low": ("float", "percentile bootstrap interval of delta, lower bound"),
    "ci_high": ("float", "percentile bootstrap interval of delta, upper bound"),
    "only_a_passed": ("int", "paired: pairs passing on A and failing on B"),
    "only_b_passed": ("int", "paired: pairs passing on B and failing on A"),
    "excludes_zero": ("bool", "unpaired: the interval lies wholly above or below 0 (raw verdict)"),
    "p_value": ("float", "two-sided p: exact McNemar (paired) or bootstrap z (unpaired)"),
    "p_holm": ("float", "p adjusted by Holm's step-down over the rows of the table"),
    "significant": ("bool", "Holm-adjusted p below alpha (corrected verdict)"),
    "n_observations_a": ("int", "observations (the bootstrap's unit) of side A in the row"),
    "n_observations_b": ("int", "observations (the bootstrap's unit) of side B in the row"),
    "small_sample": ("bool", "fewer than 30 observations on either side"),
    "ordering": ("text", "the ranked ordering (leaderboard, environment_difficulty, dispersion)"),
    "item": ("text", "the ranked model or environment"),
    "rank_a": ("float", "rank on side A (ties as mid-ranks)"),
    "rank_b": ("float", "rank on side B (ties as mid-ranks)"),
    "n": ("int", "items both sides rank"),
    "spearman": ("float", "Spearman's rho"),
    "spearman_p": ("float", "two-sided p of rho (exact below 10 items)"),
    "kendall": ("float", "Kendall's tau-b"),
    "kendall_p": ("float", "two-sided p of tau-b (exact below 10 items)"),
    "reason": ("text", "why the coefficients are missing; empty: none"),
    "p_method": ("text", "exact or asymptotic p-values; empty: no coefficients"),
    "spearman_ci_low": ("float", "95% interval of rho, low (Fisher z, Bonett-Wright; 4+ items)"),
    "spearman_ci_high": ("float", "95% interval of rho, high (Fisher z, Bonett-Wright; 4+ items)"),
    "metric": ("text", "a task's check, as its definition names it (docs/compare.md)"),
    "paired": ("bool", "the task's answers pair across the sides (one resample for both)"),
}
MISSING_IS_NONE = {"reason", "p_method"}
COLUMNS: dict[str, TableColumn] = _SHARED | {
    name: TableColumn(name, kind, meaning, name in MISSING_IS_NONE)
    for name, (kind, meaning) in _OWN.items()
}

COLUMNS |= {name: c for name, c in CONVERSATION_COLUMNS.items() if name not in COLUMNS}


def schema_of(name: str, columns: list[str]) -> TableSchema:
    """The typed schema of a comparison table with these columns (always a file, even
    empty: the comparison always wrote every table)."""
    return TableSchema(
        name,
        f"comparison table {name}",
        tuple(COLUMNS[c] for c in columns),
        optional=True,
    )


def comparison_tables(comparisons: list[Comparison]) -> dict[str, pd.DataFrame]:
    """Every table of every comparison, type-checked, by file stem (further sides prefixed)."""
    tables: dict[str, pd.DataFrame] = {}
    for i, comparison in enumerate(comparisons):
        for name, table in comparison.csv_tables(table_prefix(i)).items():
            tables[name] = schema_of(name, list(table.columns)).check(table)
    return tables


def write_comparison_tables(tables: dict[str, pd.DataFrame], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return [schema_of(name, list(t.columns)).write(t, folder) for name, t in tables.items()]


def read_comparison_tables(
    written: dict[str, pd.DataFrame], folder: Path
) -> dict[str, pd.DataFrame]:
    """The tables as read back from ``folder`` (each checked against the header written)."""
    return {name: schema_of(name, list(t.columns)).read(folder) for name, t in written.items()}


def table_prefix(index: int) -> str:
    """The file-name prefix of the tables of comparison ``index`` (from 0): none for the first,
    ``vs3_`` for the second (the third side), ..."""
    return "" if index == 0 else f"vs{index + 2}_"


def with_tables(comparisons: list[Comparison], tables: dict[str, pd.DataFrame]) -> list:
    """Each comparison with its deltas and rank agreement taken from ``tables``."""
    return [_with_tables(c, tables, table_prefix(i)) for i, c in enumerate(comparisons)]


def _with_tables(comparison: Comparison, tables: dict[str, pd.DataFrame], prefix: str):
    deltas = DeltaTables(
        **{name: tables[f"{prefix}delta_{name}"] for name, _ in comparison.deltas.items()}
    )
    agreement = tables[f"{prefix}rank_agreement"]
    correlation = tables[f"{prefix}rank_correlation"].set_index("ordering")
    ranks: dict = {"variant": comparison.ranks["variant"]}
    for what in RANK_ORDERINGS:
        row = correlation.loc[what]
        found = {key: _plain(row[key]) for key in correlation.columns}
        found["n"] = int(found["n"])
        rows = agreement[agreement["ordering"] == what].drop(columns="ordering")
        found["ranks"] = [
            {key: _plain(value) for key, value in record.items()}
            for record in rows.to_dict("records")
        ]
        ranks[what] = found
    conversations = {name: tables[f"{prefix}{name}"] for name in comparison.conversations}
    tasks = [task.with_tables(tables, prefix) for task in comparison.tasks]
    return dataclasses.replace(
        comparison, deltas=deltas, ranks=ranks, conversations=conversations, tasks=tasks
    )


def _plain(value: object) -> object:
    if isinstance(value, float) and value != value:
        return None
    if hasattr(value, "item"):
        value = value.item()
        if isinstance(value, float) and value != value:
            return None
    return value

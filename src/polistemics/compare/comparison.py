"""A comparison of side B against side A (deltas are B - A) and its outputs: the JSON document
of ``compare --json`` and the CSV tables.

With more than two sides every further side is compared with the first; the JSON document is
the first comparison with the others under ``additional_comparisons``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from polistemics.compare.conversations import conversation_deltas
from polistemics.compare.deltas import DeltaTables
from polistemics.compare.judged import (
    CORRECTION,
    PAIRED_TEST,
    SMALL_SAMPLE_UNITS,
    TESTED,
    UNPAIRED_TEST,
    CompareOptions,
    judged_deltas,
    tested_tables,
    with_small_sample_flags,
)
from polistemics.compare.matching import PAIRED, Matched
from polistemics.compare.per_task import TaskComparison, compare_tasks
from polistemics.compare.ranks import rank_agreement
from polistemics.compare.sides import Side

RANK_ORDERINGS = ("leaderboard", "environment_difficulty", "dispersion")
# Re-exported: the judged part of a comparison lives in ``judged`` (shared with ``per_task``).
__all__ = [
    "CORRECTION",
    "PAIRED_TEST",
    "SMALL_SAMPLE_UNITS",
    "TESTED",
    "UNPAIRED_TEST",
    "CompareOptions",
    "Comparison",
    "compare_pair",
    "compare_sides",
    "comparisons_json",
    "records",
    "with_small_sample_flags",
]


@dataclass
class Comparison:
    matched: Matched
    deltas: DeltaTables
    ranks: dict
    options: CompareOptions
    # pushback and self-consistency between runs (compare.conversations); empty: neither side
    # has them, and nothing of the comparison changes
    conversations: dict[str, pd.DataFrame] = field(default_factory=dict)
    # The tasks beyond the paper's (issue 29), compared where both sides asked them; notes say
    # which task only one side asked. Both empty for runs of the paper's task alone.
    tasks: list[TaskComparison] = field(default_factory=list)
    task_notes: list[str] = field(default_factory=list)

    @property
    def paired(self) -> bool:
        return self.matched.mode == PAIRED

    @property
    def title(self) -> str:
        return f"{self.matched.b.label} − {self.matched.a.label}"

    def n_significant(self) -> int:
        return sum(int(table["significant"].sum()) for name, table in self.tested())

    def tested(self) -> list[tuple[str, pd.DataFrame]]:
        """The tables with tests: paired, the pass-rate tables (McNemar); unpaired, every
        table (bootstrap z)."""
        return tested_tables(self.paired, self.deltas)

    def to_json(self) -> dict:
        m = self.matched
        return {
            "a": _side_json(m.a),
            "b": _side_json(m.b),
            "mode": m.mode,
            "delta": "b - a",
            "shared": m.shared(),
            "notes": list(m.notes),
            "left_out": list(m.left_out),
            "bootstrap": {
                "resamples": self.options.resamples,
                "seed": self.options.seed,
                "confidence": self.options.confidence,
                "kind": "paired" if self.paired else "independent",
            },
            "tests": (
                {
                    "test": PAIRED_TEST,
                    "correction": CORRECTION,
                    "alpha": self.options.alpha,
                    "n_significant": self.n_significant(),
                }
                if self.paired
                else {
                    "test": UNPAIRED_TEST,
                    "correction": CORRECTION,
                    "alpha": self.options.alpha,
                    "n_significant": self.n_significant(),
                    "n_excludes_zero": sum(
                        int(table["excludes_zero"].sum()) for _, table in self.tested()
                    ),
                }
            ),
            "rank_agreement": self.ranks,
            "deltas": {name: records(table) for name, table in self.deltas.items()},
            **self._tasks_json(),
        } | (
            {"conversations": {n: records(t) for n, t in self.conversations.items()}}
            if self.conversations
            else {}
        )

    def _tasks_json(self) -> dict:
        """The ``tasks`` key: only when a side asked a task beyond the paper's (a comparison
        of the paper's task alone is unchanged)."""
        if not self.tasks and not self.task_notes:
            return {}
        return {
            "tasks": {
                "notes": list(self.task_notes),
                "compared": {t.task: t.to_json(records) for t in self.tasks},
            }
        }

    def csv_tables(self, prefix: str = "") -> dict[str, pd.DataFrame]:
        tables = {f"{prefix}delta_{name}": table for name, table in self.deltas.items()}
        tables |= {f"{prefix}{name}": table for name, table in self.conversations.items()}
        rows = []
        for what in RANK_ORDERINGS:
            found = self.ranks[what]
            for rank in found["ranks"]:
                rows.append({"ordering": what, **rank})
        tables[f"{prefix}rank_agreement"] = pd.DataFrame(
            rows, columns=["ordering", "item", "rank_a", "rank_b", "value_a", "value_b"]
        )
        tables[f"{prefix}rank_correlation"] = pd.DataFrame(
            [
                {"ordering": what, **{k: v for k, v in self.ranks[what].items() if k != "ranks"}}
                for what in RANK_ORDERINGS
            ]
        )
        for task in self.tasks:
            tables.update(task.csv_tables(prefix))
        return tables


def _side_json(side: Side) -> dict:
    return {
        "label": side.label,
        "source": str(side.source),
        "kind": side.kind,
        "variants": side.values("variant"),
        "models": side.values("model"),
        "environments": side.values("environment"),
        "elections": side.values("election_id"),
        "n_cells": len(side.cells),
        "notes": list(side.notes),
    }


def _plain(value: object) -> object:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    return value


def records(table: pd.DataFrame) -> list[dict]:
    columns = list(table.columns)
    return [
        {c: _plain(v) for c, v in zip(columns, row, strict=True)}
        for row in table.itertuples(index=False, name=None)
    ]


def compare_pair(a: Side, b: Side, options: CompareOptions | None = None) -> Comparison:
    options = options or CompareOptions()
    matched, deltas = judged_deltas(a, b, options)
    tasks, task_notes = compare_tasks(a, b, options)
    conversations = conversation_deltas(
        a,
        b,
        resamples=options.resamples,
        seed=options.seed,
        confidence=options.confidence,
        alpha=options.alpha,
    )
    return Comparison(
        matched,
        deltas,
        rank_agreement(matched.cells_a, matched.cells_b),
        options,
        conversations,
        tasks,
        task_notes,
    )


def compare_sides(sides: list[Side], options: CompareOptions | None = None) -> list[Comparison]:
    """Every side after the first compared with the first."""
    return [compare_pair(sides[0], other, options) for other in sides[1:]]


def comparisons_json(comparisons: list[Comparison]) -> dict:
    document = comparisons[0].to_json()
    document["additional_comparisons"] = [c.to_json() for c in comparisons[1:]]
    return document

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
from polistemics.compare.deltas import UNIT_COLUMNS, DeltaTables, delta_tables
from polistemics.compare.matching import PAIRED, Matched, match_sides
from polistemics.compare.paired import with_tests
from polistemics.compare.ranks import rank_agreement
from polistemics.compare.sides import Side
from polistemics.compare.unpaired import with_bootstrap_tests
from polistemics.stats import DEFAULT_ALPHA, DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES

TESTED = {
    "sub_questions": ["variant", "model", "environment", "rubric", "sub_question"],
    "sub_questions_pooled": ["variant", "model", "rubric", "sub_question"],
    "parties": ["variant", "party_id", "environment", "rubric", "sub_question"],
}
RANK_ORDERINGS = ("leaderboard", "environment_difficulty", "dispersion")
# An interval resting on fewer observations than this on either side is flagged (issue 27).
SMALL_SAMPLE_UNITS = 30
PAIRED_TEST = "exact McNemar (two-sided)"
UNPAIRED_TEST = "bootstrap z (difference / bootstrap SE, two-sided)"
CORRECTION = "Holm, each table one family"


@dataclass(frozen=True)
class CompareOptions:
    resamples: int = DEFAULT_RESAMPLES
    seed: int = 0
    confidence: float = DEFAULT_CONFIDENCE
    alpha: float = DEFAULT_ALPHA


@dataclass
class Comparison:
    matched: Matched
    deltas: DeltaTables
    ranks: dict
    options: CompareOptions
    # pushback and self-consistency between runs (compare.conversations); empty: neither side
    # has them, and nothing of the comparison changes
    conversations: dict[str, pd.DataFrame] = field(default_factory=dict)

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
        if not self.paired:
            return self.deltas.items()
        return [(name, getattr(self.deltas, name)) for name in TESTED]

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
        } | (
            {"conversations": {n: records(t) for n, t in self.conversations.items()}}
            if self.conversations
            else {}
        )

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
    matched = match_sides(a, b)
    deltas = delta_tables(matched, options.resamples, options.seed, options.confidence)
    if matched.mode == PAIRED and matched.pairs is not None:
        for name, keys in TESTED.items():
            setattr(
                deltas, name, with_tests(getattr(deltas, name), matched.pairs, keys, options.alpha)
            )
    else:
        for name, table in deltas.items():
            setattr(deltas, name, with_bootstrap_tests(table, options.alpha))
    for name, table in deltas.items():
        setattr(deltas, name, with_small_sample_flags(table))
    conversations = conversation_deltas(
        a,
        b,
        resamples=options.resamples,
        seed=options.seed,
        confidence=options.confidence,
        alpha=options.alpha,
    )
    ranks = rank_agreement(matched.cells_a, matched.cells_b)
    return Comparison(matched, deltas, ranks, options, conversations)


def with_small_sample_flags(table: pd.DataFrame) -> pd.DataFrame:
    """The units columns moved last (after the tests, so the earlier columns keep their order)
    and ``small_sample``: fewer than ``SMALL_SAMPLE_UNITS`` observations on either side."""
    units = table.loc[:, UNIT_COLUMNS]
    out = table.drop(columns=UNIT_COLUMNS)
    out[UNIT_COLUMNS] = units
    fewest = units.min(axis=1) if len(units) else pd.Series(dtype="int64")
    out["small_sample"] = (fewest < SMALL_SAMPLE_UNITS).astype(bool)
    return out


def compare_sides(sides: list[Side], options: CompareOptions | None = None) -> list[Comparison]:
    """Every side after the first compared with the first."""
    return [compare_pair(sides[0], other, options) for other in sides[1:]]


def comparisons_json(comparisons: list[Comparison]) -> dict:
    document = comparisons[0].to_json()
    document["additional_comparisons"] = [c.to_json() for c in comparisons[1:]]
    return document

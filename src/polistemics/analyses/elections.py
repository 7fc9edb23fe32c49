"""Which cells an election's analyses use."""

from __future__ import annotations

import pandas as pd

from polistemics.analyses.schema import TableSchema
from polistemics.conditions import Variant
from polistemics.scoring.cells import distinct_texts, rows_where


def election_cells(cells: pd.DataFrame, election_id: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(every variant's cells, the headline variant's cells) of one election. The headline
    variant is the full one, or the first variant found when the source has no full variant."""
    everything = rows_where(cells, cells["election_id"] == election_id)
    headline = everything[everything["variant"] == Variant.FULL.value]
    if headline.empty:
        headline = everything[everything["variant"] == everything["variant"].iloc[0]]
    return everything, headline


def elections_in(cells: pd.DataFrame) -> list[str]:
    """The source's election ids, sorted: the order of every per-election table."""
    return distinct_texts(cells["election_id"])


def joined(frames: list[pd.DataFrame], schema: TableSchema) -> pd.DataFrame:
    """Per-election tables (each with its ``election_id`` column) as one table in ``schema``,
    ``election_id`` first."""
    if not frames:
        return schema.empty()
    table = pd.concat(frames, ignore_index=True)
    return schema.check(
        table.loc[:, ["election_id", *[c for c in table.columns if c != "election_id"]]]
    )


def election_rows(table: pd.DataFrame, election_id: str) -> pd.DataFrame:
    """One election's rows of a per-election table, without its ``election_id`` column."""
    part = table[table["election_id"] == election_id]
    return part.drop(columns=["election_id"]).reset_index(drop=True)

"""Every analysis table, computed together, written to and read back from one folder.

A table with no rows has no file (the report never wrote empty tables; one left by an earlier
build is removed), and a missing file reads back as the empty table.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import pandas as pd

from polistemics.analyses.failure_cooccurrence import (
    FAILURE_COOCCURRENCE,
    failure_cooccurrence_table,
)
from polistemics.analyses.schema import TableSchema


@dataclass(frozen=True)
class AnalysisTables:
    failure_cooccurrence: pd.DataFrame  # FAILURE_COOCCURRENCE


SCHEMAS: dict[str, TableSchema] = {"failure_cooccurrence": FAILURE_COOCCURRENCE}


def analysis_tables(cells: pd.DataFrame) -> AnalysisTables:
    """Every analysis of a source's scored cells."""
    return AnalysisTables(failure_cooccurrence=failure_cooccurrence_table(cells))


def write_analysis_tables(tables: AnalysisTables, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for field in fields(tables):
        table, schema = getattr(tables, field.name), SCHEMAS[field.name]
        if table.empty:
            schema.path(folder).unlink(missing_ok=True)  # not read back from an earlier build
        else:
            written.append(schema.write(table, folder))
    return written


def read_analysis_tables(folder: Path) -> AnalysisTables:
    found = {}
    for name, schema in SCHEMAS.items():
        found[name] = schema.read(folder) if schema.path(folder).is_file() else schema.empty()
    return AnalysisTables(**found)

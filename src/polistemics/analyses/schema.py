"""A typed table: named columns with a type and a meaning, written to and read back from
``<folder>/<name>.csv`` exactly (``csv_tables``: spreadsheet-safe text, floats round-trip).

Reading checks the header against the schema and gives every column its declared type: a text
column stays text even when its values look like numbers or like ``NA``, and an empty numeric
field is NaN.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pandas as pd

from polistemics.csv_tables import read_csv_table, write_csv_table
from polistemics.paths import inside

ColumnType = Literal["text", "int", "float", "bool"]
_DTYPES: dict[ColumnType, str] = {
    "text": "object",
    "int": "int64",
    "float": "float64",
    "bool": "bool",
}


class TableSchemaError(ValueError):
    """A table whose columns are not its schema's."""


@dataclass(frozen=True)
class TableColumn:
    name: str
    type: ColumnType
    meaning: str
    # text only: an empty field reads back as None (the analysis leaves the value out, e.g. a
    # party without a name); the file cannot tell None from "", so this is the reader's choice
    missing_is_none: bool = False


@dataclass(frozen=True)
class TableSchema:
    name: str  # the file's stem in tables/
    meaning: str
    columns: tuple[TableColumn, ...]
    # True: the table is None when not measured (no file) and an empty table still writes its
    # header (a file that says "measured, nothing found"); False: an empty table has no file.
    optional: bool = False

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def empty(self) -> pd.DataFrame:
        return pd.DataFrame({c.name: pd.Series(dtype=_DTYPES[c.type]) for c in self.columns})

    def check(self, table: pd.DataFrame) -> pd.DataFrame:
        """``table`` with the schema's columns in order and types; an error if they differ."""
        if list(table.columns) != self.names:
            raise TableSchemaError(
                f"{self.name}: columns {list(table.columns)}, expected {self.names}"
            )
        if table.empty:
            return self.empty()
        for column in self.columns:
            if column.type == "int":
                values = pd.to_numeric(table[column.name]).astype("float64")
                if values.isna().any() or (values != values.round()).any():
                    raise TableSchemaError(f"{self.name}.{column.name}: not whole numbers")
        # Only the columns of another type are converted: ``astype`` with every column rebuilds
        # the table column by column (about 1 ms for a small table, read and written by the
        # hundred in a report).
        checked = table.copy()
        for column in self.columns:
            dtype = _DTYPES[column.type]
            if checked[column.name].dtype != dtype:
                checked[column.name] = checked[column.name].astype(dtype)
        return checked

    def path(self, folder: Path) -> Path:
        return inside(folder, f"{self.name}.csv")

    def write(self, table: pd.DataFrame, folder: Path) -> Path:
        return write_csv_table(self.check(table), self.path(folder))

    def read(self, folder: Path) -> pd.DataFrame:
        path = self.path(folder)
        text = [c.name for c in self.columns if c.type == "text"]
        table = read_csv_table(
            path,
            dtype=dict.fromkeys(text, str),
            keep_default_na=False,  # a party or election called "NA" is text
            na_values={c.name: [""] for c in self.columns if c.type in ("int", "float")},
            float_precision="round_trip",
        )
        for column in self.columns:
            if column.missing_is_none:
                table[column.name] = table[column.name].map(lambda v: None if v == "" else v)
        return self.check(table)

"""Every CSV table the project writes, safe to open in a spreadsheet, and read back exactly.

A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is taken as a
formula by spreadsheet programs (a party called ``=HYPERLINK(...)`` would run one): such a cell
is written with a ``'`` in front, which spreadsheets show as text. So that ``read_csv_table``
can take the ``'`` off again without guessing, a text cell that already starts with ``'`` gets
one more. Numbers are written as they are (``-0.25`` stays a number). Header cells follow the
same rule. Text cells are quoted: pandas leaves a field with a lone carriage return unquoted,
and a reader would take it for a line end.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pandas as pd

ESCAPE = "'"
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def escape_cell(value: Any) -> Any:
    """A text cell as the CSV file holds it; any other value unchanged."""
    if isinstance(value, str) and value.startswith((*_FORMULA_STARTS, ESCAPE)):
        return ESCAPE + value
    return value


def unescape_cell(value: Any) -> Any:
    """``escape_cell`` undone."""
    if isinstance(value, str) and value.startswith(ESCAPE):
        return value[1:]
    return value


def _text_columns(table: pd.DataFrame) -> list:
    return [
        name
        for name, dtype in table.dtypes.items()
        if pd.api.types.is_object_dtype(dtype)
        or isinstance(dtype, pd.StringDtype | pd.CategoricalDtype)
    ]


def write_csv_table(table: pd.DataFrame, path: Path) -> Path:
    """``table`` as CSV (no index), every text cell through ``escape_cell``."""
    safe = table.copy(deep=False)
    for name in _text_columns(table):
        column = table[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            # escaped once per distinct value (``escape_cell`` never makes two values one),
            # and written as the text column would be: no object column of every row
            categories = column.cat.categories
            if _needs_escape(pd.Series(categories, dtype=object)):
                safe[name] = column.cat.rename_categories([escape_cell(c) for c in categories])
            continue
        column = column.astype(object)
        safe[name] = column.map(escape_cell) if _needs_escape(column) else column
    safe.columns = [escape_cell(name) for name in table.columns]
    safe.to_csv(path, index=False, quoting=csv.QUOTE_NONNUMERIC)
    return Path(path)


def _needs_escape(column: pd.Series) -> bool:
    """Whether a cell of ``column`` changes in ``escape_cell``: checked on its distinct values
    (a run's table repeats a few names over 100,000 rows), every cell when they cannot be told
    apart."""
    starts = (*_FORMULA_STARTS, ESCAPE)
    try:
        values = pd.unique(column)
    except TypeError:  # unhashable cells (lists, dicts): never text, but look at each
        values = column
    return any(isinstance(value, str) and value.startswith(starts) for value in values)


def read_csv_table(path: Path, **read_options: Any) -> pd.DataFrame:
    """A table ``write_csv_table`` wrote, with its text cells as they were."""
    table = pd.read_csv(path, **read_options)
    table.columns = [unescape_cell(name) for name in table.columns]
    for name in _text_columns(table):
        table[name] = table[name].map(unescape_cell)
    return table

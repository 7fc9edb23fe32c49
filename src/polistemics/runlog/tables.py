"""The run directory's CSV tables (``scores/cells.csv``), read and written with pandas.

Apart from the other readers so that importing ``runlog`` does not import pandas (the
annotation app starts without it).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from polistemics.csv_tables import read_csv_table, write_csv_table
from polistemics.paths import replacing
from polistemics.runlog.read import RunFileError

_ID_COLUMNS = ("observation_id", "party_id", "election_id")
# What a boolean cell may hold: pandas reads a clean column as bool, but one odd cell turns the
# whole column into text, where ``astype(bool)`` would make every "False" True.
_BOOLS = {"True": True, "False": False, True: True, False: False}  # True == 1, False == 0


def strict_bools(column: pd.Series, where: str) -> pd.Series:
    """``column`` as bools, refusing (``RunFileError`` naming ``where``, the row and the value)
    any cell that is not True/False (or 1/0)."""
    if pd.api.types.is_bool_dtype(column):
        return column.astype(bool)
    parsed = column.map(lambda value: _BOOLS.get(value) if _hashable(value) else None)
    bad = parsed.isna()
    if bad.any():
        row = int(bad.to_numpy().argmax())
        raise RunFileError(
            f"{where}, row {row + 1}, column '{column.name}': {column.iloc[row]!r} is not "
            "True or False"
        )
    return parsed.astype(bool)


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _id_text(value: str) -> str | float:
    """An id cell as written: a party called "NA" or "null" stays text (pandas' default NA
    strings would make it NaN and drop the party); only an empty cell is missing."""
    return value if value != "" else float("nan")


def read_cells(path: Path) -> pd.DataFrame:
    # Converters see the raw text, before pandas' NA detection (``dtype=str`` does not).
    cells = read_csv_table(path, converters=dict.fromkeys(_ID_COLUMNS, _id_text))
    if "passed" in cells.columns:
        cells["passed"] = strict_bools(cells["passed"], str(path))
    return cells


def write_cells(path: Path, cells: pd.DataFrame) -> Path:
    """Written to a new file renamed into place (``paths.replacing``)."""
    with replacing(path) as temporary:
        write_csv_table(cells, temporary)
    return path

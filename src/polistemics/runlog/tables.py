"""The run directory's CSV tables (``scores/cells.csv``), read and written with pandas.

Apart from the other readers so that importing ``runlog`` does not import pandas (the
annotation app starts without it).

``scores/cells.csv`` has a row per answer x sub-question (500,000 at 4x the paper's scale). It
is read ``CELLS_ROWS_PER_READ`` rows at a time, and each distinct id text is one string object
(the parser made one per cell: 1.5 million strings, about 110 MB at 4x), so the frame costs
about its pointers and the parse never holds the whole file's parse buffers (issue 32).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from polistemics.csv_tables import unescape_cell, write_csv_table
from polistemics.paths import replacing
from polistemics.runlog.read import RunFileError

_ID_COLUMNS = ("observation_id", "party_id", "election_id")
CELLS_ROWS_PER_READ = 50_000
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


def _id_texts() -> Callable[[str], str | float]:
    """An id cell as written: a party called "NA" or "null" stays text (pandas' default NA
    strings would make it NaN and drop the party); only an empty cell is missing. Each distinct
    id is one string object, however many cells hold it."""
    texts: dict[str, str] = {}

    def id_text(value: str) -> str | float:
        return texts.setdefault(value, value) if value != "" else float("nan")

    return id_text


def read_cells(path: Path, rows_per_read: int = CELLS_ROWS_PER_READ) -> pd.DataFrame:
    """The cells table as ``csv_tables.read_csv_table`` reads the whole file, ``rows_per_read``
    rows at a time. Parts whose column types disagree (a text column whose part holds only
    numbers) would not join to what the whole file gives: such a file is read again at once."""
    # Converters see the raw text, before pandas' NA detection (``dtype=str`` does not).
    options = {"converters": dict.fromkeys(_ID_COLUMNS, _id_texts())}
    with pd.read_csv(path, chunksize=rows_per_read, **options) as reader:
        parts = list(reader)
    if len(parts) == 1:
        cells = parts[0]
    elif parts and _join_as_whole(parts):
        cells = pd.concat(parts, ignore_index=True)
    else:
        cells = None
    parts.clear()
    if cells is None:
        cells = pd.read_csv(path, **options)
    cells.columns = [unescape_cell(name) for name in cells.columns]
    for name, dtype in cells.dtypes.items():
        if pd.api.types.is_object_dtype(dtype):
            cells[name] = cells[name].map(unescape_cell)
    if "passed" in cells.columns:
        cells["passed"] = strict_bools(cells["passed"], str(path))
    return cells


def _join_as_whole(parts: list[pd.DataFrame]) -> bool:
    """Whether the parts, joined, hold what one reading of all their rows gives: each column of
    one type in every part, or integers in some and floats in others (a whole reading makes them
    floats, as joining does), or text in some and nothing but missing cells in others."""
    for name in parts[0].columns:
        kinds = {part[name].dtype.kind for part in parts}
        if len(kinds) == 1 or kinds == {"i", "f"}:
            continue
        if kinds == {"O", "f"} and all(
            part[name].isna().all() for part in parts if part[name].dtype.kind == "f"
        ):
            continue
        return False
    return True


def write_cells(path: Path, cells: pd.DataFrame) -> Path:
    """Written to a new file renamed into place (``paths.replacing``)."""
    with replacing(path) as temporary:
        write_csv_table(cells, temporary)
    return path

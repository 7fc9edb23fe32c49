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

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

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


def read_cells(
    path: Path, rows_per_read: int = CELLS_ROWS_PER_READ, *, compact: bool = False
) -> pd.DataFrame:
    """The cells table as ``csv_tables.read_csv_table`` reads the whole file, ``rows_per_read``
    rows at a time. Parts whose column types disagree (a text column whose part holds only
    numbers) would not join to what the whole file gives: such a file is read again at once.

    With ``compact``, ``scoring.cells.compact_cells`` of that table (each text column a
    categorical of its sorted values), each part coded as it is read: no column of a pointer
    per cell is made for the whole file."""
    # Converters see the raw text, before pandas' NA detection (``dtype=str`` does not).
    options = {"converters": dict.fromkeys(_ID_COLUMNS, _id_texts())}
    parts, kinds = [], []
    with pd.read_csv(path, chunksize=rows_per_read, **options) as reader:
        for part in reader:
            kinds.append({name: dtype.kind for name, dtype in part.dtypes.items()})
            parts.append(_unescaped(part, compact))
    if len(parts) == 1:
        cells = parts[0]
    elif parts and _join_as_whole(parts, kinds):
        cells = _joined(parts) if compact else pd.concat(parts, ignore_index=True)
    else:
        cells = None
    parts.clear()
    if cells is None:
        cells = _unescaped(pd.read_csv(path, **options), compact)
    cells.columns = [unescape_cell(name) for name in cells.columns]
    if "passed" in cells.columns:
        cells["passed"] = strict_bools(cells["passed"], str(path))
    return cells


def _unescaped(part: pd.DataFrame, compact: bool) -> pd.DataFrame:
    """``part`` with its text cells unescaped; with ``compact``, coded (``compact_cells``)."""
    for name, dtype in part.dtypes.items():
        if pd.api.types.is_object_dtype(dtype):
            part[name] = part[name].map(unescape_cell)
    return compact_frame(part) if compact else part


def compact_values(values: np.ndarray) -> pd.Categorical | None:
    """``values`` (object) as a categorical of its sorted distinct values: a code of one or two
    bytes per cell instead of an 8-byte pointer; None when they are not all text."""
    coded = pd.Categorical(values)
    return coded if coded.categories.inferred_type in ("string", "empty") else None


def compact_frame(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with each text column coded (``compact_values``); a column whose values are
    not all text (or that is categorical already) is left as it is; so is a table with no text
    column (``scoring.cells.compact_cells``)."""
    columns = {}
    changed = False
    for name in table.columns:
        column = table[name]
        if pd.api.types.is_object_dtype(column.dtype):
            coded = compact_values(column.to_numpy())
            if coded is not None:
                column, changed = pd.Series(coded, index=table.index, name=name), True
        columns[name] = column
    return pd.DataFrame(columns, index=table.index) if changed else table


def _joined(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """Coded parts (``_unescaped``) joined as ``compact_cells`` codes the whole: a column that
    is text in every part (or missing in all of some) by one categorical of the sorted union of
    the parts' values; any other column as ``pd.concat`` joins it."""
    columns = {}
    for name in parts[0].columns:
        pieces = [part[name] for part in parts]
        coded = [isinstance(piece.dtype, pd.CategoricalDtype) for piece in pieces]
        if any(coded) and all(
            is_coded or piece.isna().all() for is_coded, piece in zip(coded, pieces, strict=True)
        ):
            pieces = [
                piece.array if is_coded else pd.Categorical(np.full(len(piece), None, object))
                for is_coded, piece in zip(coded, pieces, strict=True)
            ]
            columns[name] = union_categoricals(pieces, sort_categories=True)
        else:
            columns[name] = pd.concat(
                [p.astype(object) if c else p for p, c in zip(pieces, coded, strict=True)],
                ignore_index=True,
            )
    return pd.DataFrame(columns)


def _join_as_whole(parts: list[pd.DataFrame], part_kinds: list[dict[str, str]]) -> bool:
    """Whether the parts, joined, hold what one reading of all their rows gives: each column of
    one type in every part (``part_kinds``: the dtype kinds each part was read with), or
    integers in some and floats in others (a whole reading makes them floats, as joining
    does), or text in some and nothing but missing cells in others."""
    for name in parts[0].columns:
        kinds = {of_part[name] for of_part in part_kinds}
        if len(kinds) == 1 or kinds == {"i", "f"}:
            continue
        if kinds == {"O", "f"} and all(
            part[name].isna().all()
            for part, of_part in zip(parts, part_kinds, strict=True)
            if of_part[name] == "f"
        ):
            continue
        return False
    return True


def write_cells(path: Path, cells: pd.DataFrame) -> Path:
    """Written to a new file renamed into place (``paths.replacing``)."""
    with replacing(path) as temporary:
        write_csv_table(cells, temporary)
    return path

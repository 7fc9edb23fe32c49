"""The run directory's CSV tables (``scores/cells.csv``), read and written with pandas.

Apart from the other readers so that importing ``runlog`` does not import pandas (the
annotation app starts without it).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from polistemics.csv_tables import read_csv_table, write_csv_table

_ID_COLUMNS = {"observation_id": str, "party_id": str, "election_id": str}


def read_cells(path: Path) -> pd.DataFrame:
    cells = read_csv_table(path, dtype=_ID_COLUMNS)
    cells["passed"] = cells["passed"].astype(bool)
    return cells


def write_cells(path: Path, cells: pd.DataFrame) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_csv_table(cells, path)

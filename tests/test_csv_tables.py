"""CSV tables that spreadsheets show as text and that read back exactly."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from polistemics.csv_tables import escape_cell, read_csv_table, unescape_cell, write_csv_table


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+31 20", "'+31 20"),
        ("-A", "'-A"),
        ("@cmd", "'@cmd"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("'t Hooft", "''t Hooft"),
        ("Party = good", "Party = good"),
        ("", ""),
    ],
)
def test_text_cells_that_a_spreadsheet_would_run_are_prefixed(text: str, written: str) -> None:
    assert escape_cell(text) == written
    assert unescape_cell(written) == text


def test_other_values_are_left_alone() -> None:
    for value in (-1, -0.5, None, np.nan, True):
        assert escape_cell(value) is value


def test_a_table_round_trips_and_its_file_has_no_formula(tmp_path: Path) -> None:
    table = pd.DataFrame(
        {
            "party": ["=cmd|' /C calc'!A0", "-minus", "'quoted", "plain", np.nan],
            "score": [-0.25, 0.5, -1.0, 2.0, 3.0],
            "=header": ["@x", "+y", "z", "'", "''"],
        }
    )
    path = write_csv_table(table, tmp_path / "t.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    text_cells = [cell for row in rows for cell in (row[0], row[2])]
    assert not [cell for cell in text_cells if cell[:1] in {"=", "+", "-", "@", "\t", "\r"}]
    assert rows[1][1] == "-0.25"
    pd.testing.assert_frame_equal(read_csv_table(path), table)


def _every_cell_escaped(table: pd.DataFrame, path: Path) -> Path:
    """The reference: every text column's every cell through ``escape_cell``."""
    safe = table.copy()
    for name in safe.columns:
        if safe[name].dtype == object or isinstance(safe[name].dtype, pd.CategoricalDtype):
            safe[name] = safe[name].astype(object).map(escape_cell)
    safe.columns = [escape_cell(name) for name in table.columns]
    safe.to_csv(path, index=False, quoting=csv.QUOTE_NONNUMERIC)
    return path


def test_columns_with_or_without_a_cell_to_escape_are_written_as_cell_by_cell(
    tmp_path: Path,
) -> None:
    rows = 5000
    table = pd.DataFrame(
        {
            "plain": ["party"] * rows,
            "late": ["party"] * (rows - 1) + ["=1+1"],  # one cell to escape, the last
            "category": pd.Categorical(["a", "-b"] * (rows // 2)),
            "unhashable": [["x"], "=y"] * (rows // 2),
            "gaps": [None, np.nan, "'q", "r", 1.5] * (rows // 5),
            "number": range(rows),
        }
    )
    written = write_csv_table(table, tmp_path / "fast.csv").read_bytes()
    assert written == _every_cell_escaped(table, tmp_path / "reference.csv").read_bytes()
    assert b"'=1+1" in written and b'"\'-b"' in written and b'"\'=y"' in written


def test_a_categorical_text_column_is_written_as_the_text_column(tmp_path: Path) -> None:
    """Its categories escaped once each, the same bytes as the column of plain text (also a
    column whose values need no escape, and missing values)."""
    table = pd.DataFrame(
        {
            "party": ["=HYPERLINK(x)", "'quoted", "plain", None, "plain", "-1"],
            "model": ["m", "m", "n", None, "n", "m"],
            "n": [1, 2, 3, 4, 5, 6],
        }
    )
    coded = table.astype({"party": "category", "model": "category"})
    written = write_csv_table(table, tmp_path / "plain.csv").read_bytes()
    assert write_csv_table(coded, tmp_path / "coded.csv").read_bytes() == written
    assert list(coded["party"].cat.categories)[0] == "'quoted"  # the caller's frame unchanged

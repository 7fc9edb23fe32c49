"""Typed tables: written and read back exactly, text staying text, a wrong header refused."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from polistemics.analyses.schema import TableColumn, TableSchema, TableSchemaError

SCHEMA = TableSchema(
    name="example",
    meaning="a test table",
    columns=(
        TableColumn("name", "text", "a name from the data"),
        TableColumn("count", "int", "a count"),
        TableColumn("rate", "float", "a rate"),
    ),
)


def test_a_table_reads_back_exactly(tmp_path: Path) -> None:
    table = pd.DataFrame(
        {
            "name": ["NA", "=HYPERLINK(1)", "0123", "'quoted", "", "null"],
            "count": [1, 2, 3, 4, 5, 6],
            "rate": [0.1 + 0.2, float("nan"), 1 / 3, -0.0, 1e-17, 0.5],
        }
    )
    path = SCHEMA.write(table, tmp_path)
    assert path == tmp_path / "example.csv"
    pd.testing.assert_frame_equal(SCHEMA.read(tmp_path), table)


def test_the_empty_table_is_typed() -> None:
    empty = SCHEMA.empty()
    assert list(empty.columns) == SCHEMA.names and empty.empty
    assert empty.dtypes.astype(str).tolist() == ["object", "int64", "float64"]
    pd.testing.assert_frame_equal(SCHEMA.check(pd.DataFrame(columns=SCHEMA.names)), empty)


@pytest.mark.parametrize(
    "columns", [["name", "count"], ["count", "name", "rate"], ["name", "count", "rate", "extra"]]
)
def test_other_columns_are_refused(tmp_path: Path, columns: list[str]) -> None:
    table = pd.DataFrame([[1] * len(columns)], columns=columns)
    with pytest.raises(TableSchemaError, match="example"):
        SCHEMA.write(table, tmp_path)
    table.to_csv(tmp_path / "example.csv", index=False)
    with pytest.raises(TableSchemaError):
        SCHEMA.read(tmp_path)


def test_a_count_that_is_not_whole_is_refused(tmp_path: Path) -> None:
    (tmp_path / "example.csv").write_text('"name","count","rate"\n"a",1.5,0.1\n')
    with pytest.raises(TableSchemaError, match="count"):
        SCHEMA.read(tmp_path)


def test_checking_converts_the_columns_of_other_types_as_astype_does() -> None:
    typed = TableSchema(
        name="typed",
        meaning="every column type",
        columns=(*SCHEMA.columns, TableColumn("flag", "bool", "a flag")),
    )
    table = pd.DataFrame(
        {
            "name": ["NA", "2"],
            "count": [3.0, 4.0],  # whole floats, as a CSV with an empty field reads them
            "rate": [1, 2],  # ints where floats belong
            "flag": pd.Series([True, False], dtype=object),
        }
    )
    before = table.copy()
    checked = typed.check(table)
    expected = table.astype({"name": "object", "count": "int64", "rate": "float64", "flag": "bool"})
    pd.testing.assert_frame_equal(checked, expected)
    pd.testing.assert_frame_equal(table, before)  # the caller's table is left as it was
    assert checked is not table

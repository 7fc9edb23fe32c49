"""Strict reading of the boolean column of ``scores/cells.csv``."""

from __future__ import annotations

import tempfile
from functools import partial
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polistemics.csv_tables import read_csv_table
from polistemics.runlog import RunFileError
from polistemics.runlog.tables import compact_frame, read_cells, strict_bools, write_cells


def test_true_false_text_and_ones_and_zeros_are_read_as_what_they_say() -> None:
    column = pd.Series(["True", "False", True, False, 1, 0], name="passed", dtype=object)
    assert strict_bools(column, "cells.csv").tolist() == [True, False, True, False, True, False]


@pytest.mark.parametrize("odd", ["maybe", "", None, 2, "false"])
def test_any_other_cell_is_refused_with_its_row(odd: object) -> None:
    column = pd.Series(["False", "True", odd], name="passed", dtype=object)
    with pytest.raises(RunFileError, match=r"cells.csv, row 3, column 'passed'"):
        strict_bools(column, "cells.csv")


def test_party_and_election_ids_that_look_like_missing_values_stay_text(tmp_path) -> None:
    cells = pd.DataFrame(
        {
            "election_id": ["NA", "null"],
            "observation_id": ["NA_1", "None"],
            "party_id": ["NA", "N/A"],
            "passed": [True, False],
            "score": [1.0, float("nan")],
        }
    )
    back = read_cells(write_cells(tmp_path / "cells.csv", cells))
    assert back["party_id"].tolist() == ["NA", "N/A"]
    assert back["election_id"].tolist() == ["NA", "null"]
    assert back["observation_id"].tolist() == ["NA_1", "None"]
    assert back["score"].isna().tolist() == [False, True]


def test_a_table_without_every_id_column_is_read(tmp_path) -> None:
    cells = pd.DataFrame({"party_id": ["=x", ""], "passed": [True, True]})
    back = read_cells(write_cells(tmp_path / "cells.csv", cells))
    assert back["party_id"].iloc[0] == "=x"  # the formula guard is undone
    assert pd.isna(back["party_id"].iloc[1])


_TEXTS = st.sampled_from(["a", "NA", "=x", "'q", "-1", "", "Party 1", "null", "1.5"])


@st.composite
def cell_tables(draw: st.DrawFn) -> pd.DataFrame:
    rows = draw(st.integers(min_value=1, max_value=12))
    column = partial(st.lists, min_size=rows, max_size=rows)
    return pd.DataFrame(
        {
            "model": draw(column(_TEXTS)),
            "observation_id": draw(column(_TEXTS)),
            "party_id": draw(column(_TEXTS)),
            "sample_index": draw(column(st.integers(0, 3))),
            "passed": draw(column(st.booleans())),
            "party_name": draw(column(_TEXTS)),
            "vague_mode": draw(column(st.one_of(st.none(), st.integers(1, 5)))),
        }
    )


def _whole_file(path) -> pd.DataFrame:
    """The reading of every row at once (the reader before issue 32)."""
    cells = read_csv_table(
        path,
        converters=dict.fromkeys(
            ("observation_id", "party_id", "election_id"),
            lambda value: value if value != "" else float("nan"),
        ),
    )
    cells["passed"] = strict_bools(cells["passed"], str(path))
    return cells


@settings(max_examples=60, deadline=None)
@given(cells=cell_tables(), rows_per_read=st.integers(min_value=1, max_value=5))
def test_cells_read_in_parts_equal_the_whole_file_read_at_once(
    cells: pd.DataFrame, rows_per_read: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cells.csv"
        write_cells(path, cells)
        pd.testing.assert_frame_equal(read_cells(path, rows_per_read), _whole_file(path))


@settings(max_examples=60, deadline=None)
@given(
    cells=cell_tables(),
    languages=st.lists(st.one_of(st.none(), st.sampled_from(["de", "=en"])), min_size=12),
    rows_per_read=st.integers(min_value=1, max_value=5),
)
def test_compact_cells_read_in_parts_equal_the_whole_file_coded(
    cells: pd.DataFrame, languages: list, rows_per_read: int
) -> None:
    """Each part coded as it is read, the parts' codes joined: the whole file's reading with
    its text columns coded, whatever the parts hold (a text column missing in some parts or
    all, numbers in some parts of a text column)."""
    cells = cells.assign(language=languages[: len(cells)])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cells.csv"
        write_cells(path, cells)
        compact = read_cells(path, rows_per_read, compact=True)
        pd.testing.assert_frame_equal(compact, compact_frame(_whole_file(path)))


def test_each_distinct_id_is_one_string_object(tmp_path) -> None:
    """The ids of 1,000 cells are 2 objects, not 1,000 (a 4x run's cells held 1.5 million)."""
    path = tmp_path / "cells.csv"
    write_cells(
        path,
        pd.DataFrame(
            {"observation_id": ["o1", "o2"] * 500, "party_id": ["p"] * 1000, "passed": True}
        ),
    )
    cells = read_cells(path, rows_per_read=100)
    assert len({id(value) for value in cells["observation_id"]}) == 2
    assert len({id(value) for value in cells["party_id"]}) == 1

"""Strict reading of the boolean column of ``scores/cells.csv``."""

from __future__ import annotations

import pandas as pd
import pytest

from polistemics.runlog import RunFileError
from polistemics.runlog.tables import read_cells, strict_bools, write_cells


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

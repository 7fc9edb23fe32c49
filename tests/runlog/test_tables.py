"""Strict reading of the boolean column of ``scores/cells.csv``."""

from __future__ import annotations

import pandas as pd
import pytest

from polistemics.runlog import RunFileError
from polistemics.runlog.tables import strict_bools


def test_true_false_text_and_ones_and_zeros_are_read_as_what_they_say() -> None:
    column = pd.Series(["True", "False", True, False, 1, 0], name="passed", dtype=object)
    assert strict_bools(column, "cells.csv").tolist() == [True, False, True, False, True, False]


@pytest.mark.parametrize("odd", ["maybe", "", None, 2, "false"])
def test_any_other_cell_is_refused_with_its_row(odd: object) -> None:
    column = pd.Series(["False", "True", odd], name="passed", dtype=object)
    with pytest.raises(RunFileError, match=r"cells.csv, row 3, column 'passed'"):
        strict_bools(column, "cells.csv")

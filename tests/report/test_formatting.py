"""The report's number formatting (``report/formatting.py``): one rule per kind of number, the
variants the pages use, and an en dash for anything missing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from polistemics.report.formatting import (
    MISSING,
    interval,
    number,
    percent,
    row_interval,
    signed_points,
    with_interval,
)

MISSING_VALUES = [None, float("nan"), np.nan, pd.NA, np.float64("nan")]


def test_missing_is_an_en_dash() -> None:
    assert MISSING == "\u2013"
    for value in MISSING_VALUES:
        assert percent(value) == percent(value, unit="") == MISSING
        assert signed_points(value) == signed_points(value, plain_zero=False) == MISSING
        assert number(value) == MISSING
        assert interval(value, 0.5) == interval(0.5, value) == MISSING


def test_percent() -> None:
    assert percent(0.95143) == "95.1%" and percent(np.float64(0.95143)) == "95.1%"
    assert percent(1) == "100.0%" and percent(np.int64(0)) == "0.0%"
    assert percent(0.123456, 2) == "12.35%"
    assert percent(0.95143, unit="") == "95.1"  # a table whose header says %


def test_signed_points() -> None:
    assert signed_points(0.034) == "+3.4" and signed_points(-0.0251) == "-2.5"
    assert signed_points(-0.0001) == signed_points(0.0) == "0.0"
    assert signed_points(-0.0001, plain_zero=False) == "-0.0"
    assert signed_points(0.0, plain_zero=False) == "+0.0"


def test_number() -> None:
    assert number(0.71234) == "0.712" and number(np.float64(-1)) == "-1.000"
    assert number(0.71234, 2) == "0.71" and number(0.000123, 4) == "0.0001"


def test_intervals_of_a_row() -> None:
    row = pd.Series({"rate": 0.9512, "ci_low": 0.93, "ci_high": 0.97249, "lo": 0.1, "hi": None})
    assert interval(0.93, 0.97249) == "[93.0, 97.2]"
    assert row_interval()(row) == "[93.0, 97.2]"
    assert row_interval("lo", "hi")(row) == MISSING
    assert with_interval("rate")(row) == "95.1% [93.0, 97.2]"
    assert with_interval("rate", "lo", "hi")(row) == f"95.1% {MISSING}"


@pytest.mark.parametrize("value", ["abc", object()])
def test_a_value_that_is_no_number_is_an_error(value: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        percent(value)


def test_a_statistics_interval_and_its_sample_size() -> None:
    from polistemics.report.formatting import number_interval, sized

    assert number_interval(-0.0213, 0.2449) == "[-0.02, 0.24]"
    assert number_interval(float("nan"), 0.2) == MISSING
    assert sized("5.0% [3.1, 7.2]", 1424.0) == "5.0% [3.1, 7.2] (n = 1,424)"

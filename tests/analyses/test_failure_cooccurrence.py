"""The failure co-occurrence analysis table: per election and environment, the headline
variant's 2 x 2 failure counts and phi, written to tables/ and read back as it was."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from polistemics.analyses.elections import election_cells, elections_in
from polistemics.analyses.failure_cooccurrence import (
    FAILURE_COOCCURRENCE,
    failure_cooccurrence_table,
)
from polistemics.analyses.tables import (
    analysis_tables,
    read_analysis_tables,
    write_analysis_tables,
)
from polistemics.conditions import Environment, Variant
from polistemics.scoring.cooccurrence import COOCCURRENCE_COLUMNS, failure_cooccurrence
from report.conftest import cells_frame, rate_cells  # tests/ is on sys.path

B, V = Environment.BASELINE, Environment.VAGUE


def _cells() -> pd.DataFrame:
    """Election "e": full and anonymised variants; election "NA" (a hostile id): anonymised only."""
    spec = [
        ("m1", env, party, key, passes, 10)
        for env in (B, V)
        for party, passes in (("p1", 6), ("p2", 9))
        for key in ("position_representation", "epistemic_certainty", "sanitization")
    ]
    rows = rate_cells(spec) + rate_cells(spec[:6], variant=Variant.ANONYMIZED)
    rows += rate_cells(spec, variant=Variant.ANONYMIZED, election="NA")
    return cells_frame(rows)


def test_the_schema_extends_the_statistic_by_the_election() -> None:
    assert FAILURE_COOCCURRENCE.names == ["election_id", "environment", *COOCCURRENCE_COLUMNS]


def test_one_row_per_election_and_environment_of_the_headline_variant() -> None:
    cells = _cells()
    table = failure_cooccurrence_table(cells)
    assert elections_in(cells) == ["NA", "e"]
    assert list(zip(table["election_id"], table["environment"], strict=True)) == [
        ("NA", B.value),
        ("NA", V.value),
        ("e", B.value),
        ("e", V.value),
    ]
    for election_id in ("NA", "e"):
        _, headline = election_cells(cells, election_id)
        assert set(headline["variant"]) == {"anon" if election_id == "NA" else "full"}
        expected = failure_cooccurrence(headline).drop(columns=["variant"])
        found = table[table["election_id"] == election_id].drop(columns=["election_id"])
        pd.testing.assert_frame_equal(found.reset_index(drop=True), expected, check_dtype=False)


def test_written_and_read_back(tmp_path: Path) -> None:
    tables = analysis_tables(_cells(), resamples=20)
    assert tmp_path / "failure_cooccurrence.csv" in write_analysis_tables(tables, tmp_path)
    again = read_analysis_tables(tmp_path)
    pd.testing.assert_frame_equal(again.failure_cooccurrence, tables.failure_cooccurrence)


def test_no_rows_no_file_and_a_stale_file_is_removed(tmp_path: Path) -> None:
    write_analysis_tables(analysis_tables(_cells(), resamples=20), tmp_path)
    no_calibration = _cells()
    no_calibration = no_calibration[no_calibration["sub_question"] != "epistemic_certainty"]
    empty = analysis_tables(no_calibration, resamples=20)
    assert empty.failure_cooccurrence.empty
    assert tmp_path / "failure_cooccurrence.csv" not in write_analysis_tables(empty, tmp_path)
    assert not (tmp_path / "failure_cooccurrence.csv").exists()
    assert read_analysis_tables(tmp_path).failure_cooccurrence.empty

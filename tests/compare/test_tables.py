"""A comparison's tables written to tables/ and read back exactly: ids stay text, missing
reasons stay None, booleans stay booleans, and the comparison rebuilt from them is the one
computed."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from polistemics.compare import CompareOptions, compare_sides, load_side
from polistemics.compare.comparison import comparisons_json
from polistemics.compare.tables import (
    comparison_tables,
    read_comparison_tables,
    with_tables,
    write_comparison_tables,
)

from .cells import flipped, random_cells, run_dir


def test_tables_round_trip_and_rebuild_the_comparison(tmp_path: Path) -> None:
    cells = random_cells(parties=("0123", "=1+1", "p3"), seed=4)
    a = load_side(str(run_dir(tmp_path / "a", cells)))
    b = load_side(str(run_dir(tmp_path / "b", flipped(cells, 0.2))))
    nl = random_cells(election="de_x", parties=("0123", "=1+1", "p3"), seed=5)
    c = load_side(str(run_dir(tmp_path / "c", nl)))
    comparisons = compare_sides([a, b, c], CompareOptions(resamples=40, seed=1))
    tables = comparison_tables(comparisons)
    assert "delta_parties" in tables and "vs3_delta_parties" in tables
    written = write_comparison_tables(tables, tmp_path / "tables")
    assert sorted(p.name for p in written) == sorted(f"{name}.csv" for name in tables)
    read = read_comparison_tables(tables, tmp_path / "tables")
    for name, table in tables.items():
        pd.testing.assert_frame_equal(read[name], table, check_exact=True)
    parties = read["delta_parties"]
    assert set(parties["party_id"]) == {"0123", "=1+1", "p3"}  # text, not NaN or a formula
    assert parties["significant"].dtype == bool and parties["small_sample"].dtype == bool
    # The JSON of the rebuilt comparisons is the JSON of the computed ones.
    assert comparisons_json(with_tables(comparisons, read)) == comparisons_json(comparisons)

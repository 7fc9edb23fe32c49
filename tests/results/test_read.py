"""A run directory's files written by ``results.write`` and read back by ``results.read``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from polistemics.results.layout import CELLS_FILE
from polistemics.results.read import read_cells
from polistemics.results.write import write_cells

HOSTILE_NAMES = [
    '=HYPERLINK("http://x","y")',
    "+1",
    "-2+3",
    "@SUM(A1)",
    "\tTabbed",
    "\rReturn",
    "'Quoted",
    "''=already",
    "Plain Party",
]


def cells(names: list[str]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "observation_id": [f"0{i}" for i in range(len(names))],
            "party_id": [f"p{i}" for i in range(len(names))],
            "election_id": ["e1"] * len(names),
            "party_name": names,
            "rate": [-0.5 + i for i in range(len(names))],
            "passed": [i % 2 == 0 for i in range(len(names))],
        }
    )


def test_cells_round_trip_exactly_and_no_text_cell_is_a_formula(tmp_path: Path) -> None:
    written = cells(HOSTILE_NAMES)
    write_cells(tmp_path, written)
    raw = pd.read_csv(tmp_path / CELLS_FILE, dtype=str, keep_default_na=False)
    assert not raw["party_name"].str.match(r"[=+\-@\t\r]").any()
    assert raw["rate"].iloc[0] == "-0.5"  # numbers stay numbers
    pd.testing.assert_frame_equal(read_cells(tmp_path), written)

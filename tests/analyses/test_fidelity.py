"""App. D.4's rhetorical fidelity as analysis tables (``analyses.fidelity``): the rows per
language, or the reason there are none, written to tables/ and read back exactly."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from polistemics.analyses.fidelity import NO_EVIDENCE, fidelity_tables
from polistemics.analyses.tables import analysis_tables, read_analysis_tables, write_analysis_tables
from polistemics.report.release_inputs import load_release_inputs


def test_rows_and_reasons_round_trip(release_dir: Path, tmp_path: Path) -> None:
    inputs = load_release_inputs(release_dir)
    found = fidelity_tables(inputs.evidence)
    row = found["fidelity"].set_index("language").loc["nl"]
    assert row["items"] == 240 and round(row["density_raw_mean"], 2) == 0.47  # App. D.4 (NL)
    assert found["fidelity_unavailable"].empty
    tables = analysis_tables(inputs.cells, resamples=20, evidence=inputs.evidence)
    write_analysis_tables(tables, tmp_path)
    again = read_analysis_tables(tmp_path)
    pd.testing.assert_frame_equal(again.fidelity, found["fidelity"], check_exact=True)
    assert not (tmp_path / "fidelity_unavailable.csv").exists()  # no rows, no file
    without = fidelity_tables(None)
    assert without["fidelity"].empty
    assert without["fidelity_unavailable"]["reason"].tolist() == [NO_EVIDENCE]

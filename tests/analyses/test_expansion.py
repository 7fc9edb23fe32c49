"""App. D.4 as analysis tables (``analyses.expansion``): its rows per election, or the reason
an election has none, written to tables/ and read back exactly."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from polistemics.analyses.expansion import NO_EVIDENCE, NO_I4, expansion_tables
from polistemics.analyses.tables import analysis_tables, read_analysis_tables, write_analysis_tables
from polistemics.report.release_inputs import load_release_inputs


@pytest.fixture(scope="module")
def dutch(release_dir: Path):
    return load_release_inputs(release_dir)


def test_rows_per_election_and_the_reasons_round_trip(dutch, tmp_path: Path) -> None:
    cells = dutch.cells
    other = cells[cells["sub_question"] != "sanitization"].assign(election_id="NA")
    both = pd.concat([cells, other], ignore_index=True)
    found = expansion_tables(both, dutch.evidence)
    rows, reasons = found["expansion_vs_i4"], found["expansion_vs_i4_unavailable"]
    assert set(rows["election_id"]) == {"nl_tk2025"} and list(rows["tercile"]) == [1, 2, 3]
    assert reasons.to_dict("records") == [{"election_id": "NA", "reason": NO_I4}]
    tables = analysis_tables(both, resamples=20, evidence=dutch.evidence)
    write_analysis_tables(tables, tmp_path)
    again = read_analysis_tables(tmp_path)
    for name in ("expansion_vs_i4", "expansion_vs_i4_unavailable"):
        pd.testing.assert_frame_equal(getattr(again, name), found[name], check_exact=True)


def test_without_evidence_every_election_says_why(dutch) -> None:
    found = expansion_tables(dutch.cells, None)
    assert found["expansion_vs_i4"].empty
    assert found["expansion_vs_i4_unavailable"].to_dict("records") == [
        {"election_id": "nl_tk2025", "reason": NO_EVIDENCE}
    ]

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


def test_rho_carries_its_bonett_wright_interval_and_n() -> None:
    """Twelve items of two parties (a fixture, no shared data): each row's interval is the
    Fisher-z interval of rho with the Bonett-Wright SE over n_items, checked against scipy's
    Fisher-z interval of the ranks' Pearson r widened by sqrt(1 + rho^2 / 2)."""
    import numpy as np
    from scipy.stats import pearsonr, rankdata

    from polistemics.analyses.expansion import expansion_table
    from polistemics.records import Evidence, Party, Position, Stance, Statement
    from report.conftest import cell, cells_frame  # tests/ is on sys.path

    evidence, rows = [], []
    for i in range(12):
        party = ("p1", "p2")[i % 2]
        position = Position(
            election_id="e",
            country="NL",
            language="Dutch",
            party=Party(id=party, name=party.upper()),
            statement=Statement(id=f"e__s{i + 1:03d}", number=i + 1, text="Stelling"),
            stance=Stance.AGREE,
            rationale="x" * 20,
        )
        evidence.append(Evidence(position=position, text="y" * (20 + 7 * i)))
        passes = (i * 5) % 4  # of three judges' majority cells: 0-3 passing
        rows += [
            cell(k < passes, "sanitization", observation=position.observation_id, party=party)
            for k in range(3)
        ]
    table, reason = expansion_table(cells_frame(rows), evidence)
    assert reason is None and table is not None
    row = table.iloc[0]
    assert row["n_items"] == 12
    expansions = [len(e.text) / 20 for e in evidence]
    rates = [((i * 5) % 4) / 3 for i in range(12)]
    scipy_r = pearsonr(rankdata(expansions), rankdata(rates))
    assert row["spearman_rho"] == pytest.approx(scipy_r.statistic)
    ci = scipy_r.confidence_interval(0.95)
    half = (
        (np.arctanh(ci.high) - np.arctanh(ci.low)) / 2 * np.sqrt(1 + row["spearman_rho"] ** 2 / 2)
    )
    centre = np.arctanh(row["spearman_rho"])
    assert row["rho_ci_low"] == pytest.approx(np.tanh(centre - half))
    assert row["rho_ci_high"] == pytest.approx(np.tanh(centre + half))
    assert table["rho_ci_low"].nunique() == 1  # one interval per language, on every tercile row

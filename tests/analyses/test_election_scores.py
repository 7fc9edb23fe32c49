"""The per-election score tables (leaderboard, robustness, party, leave-one-out, ablation,
bootstrap ...): one long table per name, written to tables/ and read back as computed, and the
report's view of one election equal to the tables computed on the spot."""

from __future__ import annotations

from dataclasses import fields

import pandas as pd
import pytest

from polistemics.analyses.election_scores import ELECTION_SCHEMAS, election_score_tables
from polistemics.analyses.failure_cooccurrence import failure_cooccurrence_table
from polistemics.analyses.party_findings import party_finding_tables
from polistemics.analyses.tables import (
    analysis_tables,
    read_analysis_tables,
    write_analysis_tables,
)
from polistemics.conditions import Variant
from polistemics.report.tables import ElectionTables, election_tables, election_tables_of
from polistemics.scoring.cells import compact_cells
from polistemics.scoring.summary import score_cells
from report.conftest import cells_frame  # tests/ is on sys.path
from report.test_tables import study_rows


def _cells() -> pd.DataFrame:
    """Election "e" (full and anonymised) and election "NA" (a hostile id, full only)."""
    anon = [dict(row, variant=Variant.ANONYMIZED.value) for row in study_rows()]
    return pd.concat(
        [cells_frame(study_rows() + anon), cells_frame(study_rows("NA"))], ignore_index=True
    )


def test_every_table_reads_back_as_computed(tmp_path) -> None:
    cells = _cells()
    tables = analysis_tables(cells, resamples=30)
    written = {p.stem for p in write_analysis_tables(tables, tmp_path)}
    assert {"leaderboard", "bootstrap", "loo_deviations", "ablation_deltas"} <= written
    again = read_analysis_tables(tmp_path)
    for name in ELECTION_SCHEMAS:
        computed = getattr(tables, name)
        pd.testing.assert_frame_equal(getattr(again, name), computed, obj=name)
        if not computed.empty:
            assert set(computed["election_id"]) <= {"e", "NA"}
            assert computed["election_id"].map(type).eq(str).all()  # "NA" stays text


def test_one_election_as_read_back_equals_it_computed_on_the_spot(tmp_path) -> None:
    cells = _cells()
    write_analysis_tables(analysis_tables(cells, resamples=30), tmp_path)
    again = read_analysis_tables(tmp_path)
    for election in ("e", "NA"):
        shown = election_tables_of(again, cells, election)
        direct = election_tables(cells, election, resamples=30)
        assert (shown.models, shown.environments) == (direct.models, direct.environments)
        for entry in fields(ElectionTables):
            ours, theirs = getattr(shown, entry.name), getattr(direct, entry.name)
            if isinstance(theirs, pd.DataFrame) and not theirs.empty:
                pd.testing.assert_frame_equal(
                    ours, theirs.reset_index(drop=True), check_dtype=False, obj=entry.name
                )
            elif isinstance(theirs, pd.DataFrame):
                assert ours is None or ours.empty, entry.name
            else:
                assert ours == theirs, entry.name


def test_an_election_table_is_empty_when_no_election_has_rows() -> None:
    cells = cells_frame(study_rows())
    found = election_score_tables(cells, resamples=10)
    assert found["ablation_deltas"].empty  # no ablation variant
    assert list(found["ablation_deltas"].columns) == ELECTION_SCHEMAS["ablation_deltas"].names


def test_the_dispersion_table_carries_its_bootstrap_interval_and_n() -> None:
    from polistemics.scoring.bootstrap import bootstrap_dispersion_of_totals, observation_totals

    cells = _cells()
    table = election_score_tables(cells, resamples=40, seed=2)["dispersion"]
    own = cells[(cells["election_id"] == "e") & (cells["variant"] == Variant.FULL.value)]
    engine = bootstrap_dispersion_of_totals(observation_totals(own), n_resamples=40, seed=2)
    rows = table[table["election_id"] == "e"].set_index("model")
    assert len(rows) == len(engine) > 0
    for found in engine.itertuples():
        row = rows.loc[found.model]
        assert row["dispersion"] == pytest.approx(found.estimate, abs=1e-12)
        assert (row["dispersion_ci_low"], row["dispersion_ci_high"]) == (
            found.ci_low,
            found.ci_high,
        )
        assert (
            row["n_observations"]
            == found.n_observations
            == own[own["model"] == found.model]["observation_id"].nunique()
        )


def test_the_tables_of_compact_cells_are_those_of_the_text_cells() -> None:
    """``analysis_tables`` computes from ``compact_cells``: the same tables as from the text
    columns, with a key combination absent from an election (m2 not anonymised in "e", no
    ablation in "NA") and a missing country, never a row for a combination not in the cells."""
    anon_m1 = [
        dict(row, variant=Variant.ANONYMIZED.value) for row in study_rows() if row["model"] == "m1"
    ]
    cells = pd.concat(
        [cells_frame(study_rows() + anon_m1), cells_frame(study_rows("NA"))], ignore_index=True
    )
    cells.loc[cells["party_id"] == "p2", "country"] = None
    compact = compact_cells(cells)
    assert isinstance(compact["variant"].dtype, pd.CategoricalDtype)
    for compute in (
        lambda c: election_score_tables(c, resamples=30),
        lambda c: party_finding_tables(c, resamples=30),
        lambda c: {"failure_cooccurrence": failure_cooccurrence_table(c)},
    ):
        from_text, from_codes = compute(cells), compute(compact)
        assert from_text.keys() == from_codes.keys()
        for name, table in from_text.items():
            pd.testing.assert_frame_equal(from_codes[name], table, obj=name)
    assert [s.to_json() for s in score_cells(compact)] == [s.to_json() for s in score_cells(cells)]

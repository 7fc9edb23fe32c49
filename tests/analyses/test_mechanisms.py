from __future__ import annotations

from pathlib import Path

import pandas as pd

from mechanism_records import write_mechanism_run
from polistemics.analyses.mechanisms import (
    MECHANISM_SCHEMAS,
    mechanism_analysis_tables,
    mechanism_frames,
)
from polistemics.analyses.tables import (
    analysis_tables,
    read_analysis_tables,
    write_analysis_tables,
)
from polistemics.runlog import RunDir
from polistemics.scoring.mechanisms import mechanism_tables


def _run(tmp_path: Path) -> RunDir:
    return RunDir(write_mechanism_run(tmp_path / "run"))


def test_every_mechanism_table_reads_back_as_computed(tmp_path: Path):
    run = _run(tmp_path)
    cells, items = run.read_cells(), run.read_items()
    codes, probes = run.read_stance_codes(), run.read_prior_probe()
    computed = mechanism_frames(mechanism_tables(items, codes, cells, probes=probes))
    tables = analysis_tables(cells, items=items, stance_codes=codes, probes=probes, resamples=20)
    write_analysis_tables(tables, tmp_path / "tables")
    back = read_analysis_tables(tmp_path / "tables")
    assert sum(not f.empty for f in computed.values()) >= 10
    for name, frame in computed.items():
        read = getattr(back, name)
        assert (tmp_path / "tables" / f"{name}.csv").is_file()  # an empty one: its header
        assert list(read.columns) == MECHANISM_SCHEMAS[name].names
        if frame.empty:
            assert read.empty
            continue
        pd.testing.assert_frame_equal(
            _nulls_as_none(read), _nulls_as_none(frame), check_dtype=False
        )


def _nulls_as_none(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.reset_index(drop=True).astype(object)
    return frame.where(frame.notna(), None)


def test_an_uncoded_run_has_no_mechanism_tables(tmp_path: Path):
    run = _run(tmp_path)
    found = mechanism_analysis_tables(run.read_items(), None, run.read_cells(), None)
    assert found == dict.fromkeys(MECHANISM_SCHEMAS)
    write_analysis_tables(analysis_tables(run.read_cells(), resamples=20), tmp_path / "t")
    assert not list((tmp_path / "t").glob("mechanisms_*.csv"))
    assert read_analysis_tables(tmp_path / "t").mechanisms_party_points is None


def test_empty_tables_have_the_columns_of_full_ones(tmp_path: Path):
    """A run that coded nothing has every table empty; each one's header is the schema's (the
    pooled table's measure first, as a non-empty one has it, not last)."""
    run = _run(tmp_path)
    found = mechanism_analysis_tables(run.read_items(), [], run.read_cells(), None)
    for name, frame in found.items():
        assert frame.empty
        assert list(frame.columns) == MECHANISM_SCHEMAS[name].names
    assert list(found["mechanisms_first_chunk_pooled"].columns)[0] == "measure"

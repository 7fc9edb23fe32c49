"""A run's scores from its judges.jsonl (``score_run_files``): the same cells and tally as from
the records held in memory, on any small panel."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
from hypothesis import HealthCheck, given, settings

from analyses.test_analysis_properties import Panel, panels  # tests/ is on sys.path
from polistemics.runlog import RunDir
from polistemics.scoring.run_scores import score_run_files
from polistemics.scoring.verdict_table import score_run


@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(panel=panels())
def test_the_files_scores_equal_the_scores_of_the_records_in_memory(panel: Panel) -> None:
    countries = {item.election_id: "XX" for item in panel.items}
    with tempfile.TemporaryDirectory() as folder:
        run = RunDir(Path(folder))
        run.write_judge_records(panel.records)
        from_file = score_run_files(
            run, panel.items, panel_size=panel.panel_size, countries=countries
        )
    in_memory = score_run(
        panel.records, panel.items, panel_size=panel.panel_size, countries=countries
    )
    pd.testing.assert_frame_equal(from_file.cells, in_memory.cells)
    pd.testing.assert_frame_equal(from_file.tally.counts, in_memory.tally.counts)


def test_a_run_without_judges_jsonl_has_no_cells(tmp_path: Path) -> None:
    scored = score_run_files(RunDir(tmp_path), [], panel_size=3, countries={})
    assert scored.cells.empty

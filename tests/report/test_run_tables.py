"""A run's own tables/ (analyses.run_tables): written once by the finish step, read back by
``polistemics report RUN`` and ``polistemics score RUN`` while current, rewritten when stale."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from polistemics.analyses import fingerprint
from polistemics.analyses.model_scores import SCHEMAS as SCORE_SCHEMAS
from polistemics.analyses.run_tables import write_run_score_tables
from polistemics.analyses.tables import SCHEMAS
from polistemics.cli import app
from polistemics.report.build import build_report
from polistemics.report.content import ReportOptions
from polistemics.runlog import RunDir
from polistemics.scoring.summary import score_cells

from .conftest import finish_demo_study

runner = CliRunner()
FAST = ReportOptions(bootstrap_resamples=50, figure_formats=("svg",))


@pytest.fixture(scope="module")
def own_finished_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    """A finished demo run of this module's own: the session's shared one may have had its
    tables/ rewritten by a report with other options in another test file."""
    return finish_demo_study(tmp_path_factory.mktemp("own-demo-study"))


def _score_json(run: Path) -> str:
    result = runner.invoke(app, ["score", str(run), "--json"])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_finish_step_writes_the_run_tables_the_report_copies(own_finished_run):
    run_dir, paths = own_finished_run
    run = RunDir(run_dir)
    assert set(fingerprint.recorded(run.tables)) == {"analyses", "scores"}
    report_tables = paths["report"].parent / "tables"
    copied = [p for p in run.tables.glob("*.csv") if p.stem in SCHEMAS]
    assert len(copied) > 10
    for path in copied:
        assert path.read_bytes() == (report_tables / path.name).read_bytes(), path.name
    assert (run.tables / "model_scores.csv").is_file()


def test_report_run_after_the_run_reads_its_tables_as_they_are(own_finished_run, tmp_path):
    """With the run's options the tables are current: nothing in tables/ is rewritten, and the
    report's tables are the finish step's."""
    run_dir, paths = own_finished_run
    run = RunDir(run_dir)
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in run.tables.iterdir()}
    options = ReportOptions(figure_formats=("svg",))
    tables = build_report(run_dir, tmp_path / "again", options).parent / "tables"
    assert {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in run.tables.iterdir()} == before
    finish_tables = paths["report"].parent / "tables"
    for path in tables.glob("*.csv"):
        if path.stem in SCHEMAS:
            assert path.read_bytes() == (finish_tables / path.name).read_bytes(), path.name


def test_score_json_from_the_tables_is_what_scoring_the_cells_gives(own_finished_run):
    """The old path (score the chosen variant's cells, no stance codes: null rates) and the
    run's tables give the same bytes, and reading leaves the tables as they were."""
    run_dir, _ = own_finished_run
    run = RunDir(run_dir)
    before = (run.tables / "manifest.json").read_bytes()
    cells = run.read_cells()
    for variant in ("full", "anon", "en"):
        result = runner.invoke(app, ["score", str(run_dir), "--json", "--variant", variant])
        assert result.exit_code == 0, result.output
        old = [
            s.to_json() | {"mechanisms": dict.fromkeys(_rate_keys()), "task": "party_position"}
            for s in score_cells(cells[cells["variant"] == variant])
        ]
        assert old
        assert result.stdout == json.dumps(old, indent=2) + "\n"
    assert (run.tables / "manifest.json").read_bytes() == before


def _rate_keys() -> list[str]:
    return ["fallback_match_rate", "first_chunk_rate", "prior_accuracy", "follows_evidence_rate"]


def test_score_reads_current_tables_and_recomputes_stale_ones(demo_run_copy: Path):
    run = RunDir(demo_run_copy)
    truth = _score_json(demo_run_copy)
    table = pd.read_csv(run.tables / "model_scores.csv", dtype=str, keep_default_na=False)
    table.loc[table["measure"] == "emi", "value"] = "0.125"
    table.to_csv(run.tables / "model_scores.csv", index=False)
    assert '"emi": 0.125' in _score_json(demo_run_copy)  # read, not recomputed
    run.cells.write_bytes(run.cells.read_bytes() + b"\n")  # other bytes: stale
    assert _score_json(demo_run_copy) == truth


def test_score_tables_from_cells_in_memory_are_those_of_the_file(demo_run_copy: Path, monkeypatch):
    """The finish passes the cells it has just written: the score tables are those of the
    file, and the file is not read back (issue 32: no second frame of every cell)."""
    run = RunDir(demo_run_copy)
    written = {p.name: p.read_bytes() for p in run.tables.glob("*.csv")}
    cells = run.read_cells(compact=True)
    fingerprint.forget(run.tables, "scores")
    for schema in SCORE_SCHEMAS:
        (run.tables / f"{schema.name}.csv").unlink(missing_ok=True)

    def refused(*args, **kwargs):
        raise AssertionError("scores/cells.csv read back")

    monkeypatch.setattr(RunDir, "read_cells", refused)
    write_run_score_tables(run, cells)
    assert "scores" in fingerprint.recorded(run.tables)
    assert {p.name: p.read_bytes() for p in run.tables.glob("*.csv")} == written


def test_report_reads_current_run_tables_and_recomputes_stale_ones(
    demo_run_copy: Path, tmp_path: Path
):
    run = RunDir(demo_run_copy)
    (run.tables / "manifest.json").unlink()  # the finish step's options were not FAST's
    first = build_report(demo_run_copy, tmp_path / "a", FAST).parent / "tables"
    assert "analyses" in fingerprint.recorded(run.tables)
    truth = (first / "leaderboard.csv").read_text()
    board = pd.read_csv(run.tables / "leaderboard.csv", dtype=str, keep_default_na=False)
    board["emi"] = "0.125"
    board.to_csv(run.tables / "leaderboard.csv", index=False)
    read = build_report(demo_run_copy, tmp_path / "b", FAST).parent / "tables"
    assert set(pd.read_csv(read / "leaderboard.csv")["emi"]) == {0.125}  # read, not computed
    other_seed = ReportOptions(bootstrap_resamples=50, seed=1, figure_formats=("svg",))
    build_report(demo_run_copy, tmp_path / "c", other_seed)  # other options: stale
    again = build_report(demo_run_copy, tmp_path / "d", FAST).parent / "tables"
    assert (again / "leaderboard.csv").read_text() == truth


def test_a_tables_link_leading_out_of_the_run_is_refused(demo_run_copy: Path, tmp_path: Path):
    import shutil

    import pytest

    from polistemics.report.inputs import ReportInputError

    run = RunDir(demo_run_copy)
    outside = tmp_path / "outside"
    shutil.move(run.tables, outside)
    run.tables.symlink_to(outside, target_is_directory=True)
    with pytest.raises(ReportInputError):
        build_report(demo_run_copy, tmp_path / "a", FAST)
    result = runner.invoke(app, ["score", str(demo_run_copy), "--json"])
    assert result.exit_code == 2  # a user error, not a crash
    assert "error:" in result.stderr


def test_a_run_that_cannot_be_written_gets_computed_tables(
    demo_run_copy: Path, tmp_path: Path, monkeypatch
):
    """tables/ stays as it was (here: stale) and the report and score show fresh numbers."""
    run = RunDir(demo_run_copy)
    truth = _score_json(demo_run_copy)
    reference = build_report(demo_run_copy, tmp_path / "ref", FAST).parent / "tables"
    board = pd.read_csv(run.tables / "leaderboard.csv", dtype=str, keep_default_na=False)
    board["emi"] = "0.125"
    board.to_csv(run.tables / "leaderboard.csv", index=False)
    run.cells.write_bytes(run.cells.read_bytes() + b"\n")  # stale
    before = {p.name: p.read_bytes() for p in run.tables.iterdir()}

    def refuse(*args, **kwargs):
        raise PermissionError("read-only")

    monkeypatch.setattr(fingerprint, "forget", refuse)
    assert _score_json(demo_run_copy) == truth
    tables = build_report(demo_run_copy, tmp_path / "b", FAST).parent / "tables"
    assert (tables / "leaderboard.csv").read_bytes() == (reference / "leaderboard.csv").read_bytes()
    assert {p.name: p.read_bytes() for p in run.tables.iterdir()} == before

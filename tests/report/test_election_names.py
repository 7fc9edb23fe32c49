"""Elections named by their sources' titles (``report/election_names.py``), as the report
command passes them to the figures."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.report.election_names import source_titles
from polistemics.runlog import RunDir

from .conftest import cells_frame
from .test_tables import study_rows

DEMO_TITLE = "Parlamentswahl in Veltria (fiktive Demo)"


def run_with_manifest(folder: Path, sources: list[str], election: str = "demo_de") -> Path:
    RunDir(folder).write_cells(cells_frame(study_rows(election)))
    manifest = {"config": {"elections": [{"source": s} for s in sources]}}
    (folder / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def test_titles_come_from_the_sources_a_run_names(tmp_path: Path) -> None:
    run = run_with_manifest(tmp_path / "run", ["demo:de", "wahlomat:no-such-election-here"])
    assert source_titles([run]) == {"demo_de": DEMO_TITLE}
    assert source_titles([tmp_path / "missing"]) == {}
    (run / "run.json").write_text("{not json", encoding="utf-8")
    assert source_titles([run]) == {}


def test_report_titles_name_the_election_by_its_source(tmp_path: Path) -> None:
    run = run_with_manifest(tmp_path / "run", ["demo:de"])
    result = CliRunner().invoke(
        app, ["report", str(run), "--out", str(tmp_path / "out"), "--figure-format", "svg"]
    )
    assert result.exit_code == 0, result.output
    svg = (tmp_path / "out" / "figures" / "demo_de_fig02_leaderboard.svg").read_text()
    assert f"Overall model performance — {DEMO_TITLE}" in svg
    relabelled = CliRunner().invoke(
        app,
        [
            "report",
            str(run),
            "--out",
            str(tmp_path / "b"),
            "--figure-format",
            "svg",
            "--label",
            "demo_de=Veltria 2025",
        ],
    )
    assert relabelled.exit_code == 0, relabelled.output
    svg = (tmp_path / "b" / "figures" / "demo_de_fig02_leaderboard.svg").read_text()
    assert "Overall model performance — Veltria 2025" in svg

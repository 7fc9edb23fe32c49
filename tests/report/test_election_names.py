"""Elections named by their sources' titles and models by their display names
(``report/election_names.py``), as the report command passes them to the figures."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.report.election_names import recorded_names, source_titles
from polistemics.runlog import RunDir

from .conftest import cells_frame
from .test_tables import study_rows

DEMO_TITLE = "Parlamentswahl in Veltria (fiktive Demo)"


def run_with_manifest(
    folder: Path, sources: list[str], election: str = "demo_de", **recorded: dict
) -> Path:
    RunDir(folder).write_cells(cells_frame(study_rows(election)))
    manifest = {"config": {"elections": [{"source": s} for s in sources]}, **recorded}
    (folder / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def report_svg(run: Path, out: Path, *options: str) -> str:
    """The leaderboard figure of ``polistemics report RUN --out OUT``."""
    argv = ["report", str(run), "--out", str(out), "--figure-format", "svg", *options]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    return (out / "figures" / "demo_de_fig02_leaderboard.svg").read_text(encoding="utf-8")


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


RECORDED = {
    "models": {
        "m1": {"model": "vendor/m1", "display_name": "Model  One"},
        "m2": {"model": "vendor/m2"},  # no display name: named from its id
        "m3": {"model": "vendor/m3", "display_name": 7},  # not text: left out
    },
    "elections": {"demo_de": {"title": "Veltria, as recorded", "counts": {}}},
}


def test_run_json_records_display_names_and_titles(tmp_path: Path) -> None:
    run = run_with_manifest(tmp_path / "run", ["demo:de"], **RECORDED)
    names = recorded_names([run, tmp_path / "missing"])
    assert names.display_names == {"m1": "Model One"}
    assert names.election_titles == {"demo_de": "Veltria, as recorded"}
    # A run whose run.json has its titles needs no source loaded (the source's title differs).
    assert source_titles([run]) == {}


def test_the_report_names_models_and_elections_as_run_json_records(tmp_path: Path) -> None:
    """The figures take the recorded names over the source's title and the ids; --label still
    overrides both."""
    run = run_with_manifest(tmp_path / "run", ["demo:de"], **RECORDED)
    svg = report_svg(run, tmp_path / "a")
    assert "Overall model performance — Veltria, as recorded" in svg
    assert DEMO_TITLE not in svg
    assert ">Model One<" in svg and ">M2<" in svg  # m2 humanised, as before
    svg = report_svg(run, tmp_path / "b", "--label", "m1=First", "--label", "demo_de=Veltria 25")
    assert "Overall model performance — Veltria 25" in svg
    assert ">First<" in svg and "Model One" not in svg

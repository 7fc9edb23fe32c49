from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.cli.errors import UserError
from polistemics.cli.report import parse_labels

runner = CliRunner()


def test_report_command_on_a_run(finished_demo_run, tmp_path: Path) -> None:
    run_dir, _ = finished_demo_run
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        [
            "report",
            str(run_dir),
            "--out",
            str(out),
            "--label",
            "target-a=Target A",
            "--resamples",
            "50",
        ],
    )
    assert result.exit_code == 0, result.output
    assert f"report: {out / 'report.html'}" in result.stdout
    assert "Target A" in (out / "report.html").read_text(encoding="utf-8")
    assert any((out / "figures").glob("*.svg")) and any((out / "tables").glob("*.csv"))
    # `report` writes the paper formats that a run leaves for it (a run writes SVG only)
    figures = {path.stem for path in (out / "figures").glob("*.svg")}
    assert figures == {path.stem for path in (out / "figures").glob("*.pdf")}
    assert figures == {path.stem for path in (out / "figures").glob("*.png")}
    assert "For PDF" not in (out / "report.html").read_text(encoding="utf-8")


def test_report_command_on_a_small_release_without_contexts(
    fixtures_dir: Path, tmp_path: Path
) -> None:
    # the scoring fixture's ground truth lacks statement texts and contexts: scores still render.
    # SVG only: this test reads the page; the same release's figures are written in every format
    # by test_figures (small_release_report), and `report`'s default formats by the test above.
    result = runner.invoke(
        app,
        [
            "report",
            str(fixtures_dir / "scoring" / "release_small"),
            "--out",
            str(tmp_path),
            "--resamples",
            "20",
            "--figure-format",
            "svg",
        ],
    )
    assert result.exit_code == 0, result.output
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "model_a" in html and "statement_text" in html  # the note names the missing field


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["report", "/nonexistent-folder"], "no such folder"),
        (["report", "."], "neither a finished run directory"),
    ],
)
def test_report_command_errors(args: list[str], message: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output


def test_labels_are_parsed() -> None:
    assert parse_labels(["gpt_5_4=GPT-5.4", " a = b=c "]) == {"gpt_5_4": "GPT-5.4", "a": "b=c"}
    with pytest.raises(UserError, match="MODEL=DISPLAY NAME"):
        parse_labels(["nolabel"])


def test_the_loo_gate_is_off_by_default_and_the_page_says_when_it_is_used(
    finished_demo_run, tmp_path: Path
) -> None:
    import pandas as pd

    run_dir, _ = finished_demo_run
    pages = {}
    for name, extra in (("default", []), ("gated", ["--loo-min-items", "20"])):
        out = tmp_path / name
        args = ["report", str(run_dir), "--out", str(out), "--resamples", "20"]
        result = runner.invoke(app, [*args, "--figure-format", "svg", *extra])
        assert result.exit_code == 0, result.output
        pages[name] = (out / "report.html").read_text(encoding="utf-8")
        loo = pd.read_csv(out / "tables" / "loo_deviations.csv")
        paper_rule = loo["deviation"].abs() >= 0.15 - 1e-12
        if name == "default":
            assert (loo["flagged"] == paper_rule).all()
        else:
            assert (loo["flagged"] == (paper_rule & (loo["n_items"] >= 20))).all()
    assert "no minimum-items gate" in pages["default"]
    assert "minimum-items gate is used" not in pages["default"]
    assert "minimum-items gate is used: a party needs at least 20 items" in pages["gated"]

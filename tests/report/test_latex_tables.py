"""Booktabs LaTeX tables (``report/latex_tables.py``, ``report --tables latex``): structure,
values as the CSV tables hold them, and LaTeX escaping of every text from the data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polistemics.analyses.tables import analysis_tables
from polistemics.cli import app
from polistemics.report.labels import ModelLabels
from polistemics.report.latex_tables import (
    TableFormatError,
    latex_text,
    parse_table_formats,
    write_latex_tables,
)
from polistemics.runlog import RunDir

from .conftest import cells_frame
from .test_tables import study_rows

HOSTILE_PARTY = r"A&B 100% \input{/etc/passwd} $x_1$ #1 {~^}"
ESCAPED_PARTY = (
    r"A\&B 100\% \textbackslash{}input\{/etc/passwd\} \$x\_1\$ \#1 "
    r"\{\textasciitilde{}\textasciicircum{}\}"
)


def hostile_cells(election: str = "e"):
    cells = cells_frame(study_rows(election))
    cells.loc[cells["party_id"] == "p1", "party_name"] = HOSTILE_PARTY
    return cells.assign(model=cells["model"].replace({"m1": "gpt_5_4"}))


def body_rows(tex: str) -> list[list[str]]:
    """The rows between \\midrule and \\bottomrule, split on unescaped ``&``."""
    body = tex.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]
    return [re.split(r"(?<!\\)&", line.removesuffix("\\\\").strip()) for line in body.splitlines()]


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("tables")
    analyses = analysis_tables(hostile_cells(), resamples=30)
    paths = write_latex_tables(analyses, folder, ModelLabels({"m2": "Model & Co_2"}))
    return {p.stem: p.read_text(encoding="utf-8") for p in paths}


def test_booktabs_structure(written: dict[str, str]) -> None:
    assert set(written) == {"leaderboard", "robustness", "party_findings"}
    for name, tex in written.items():
        assert tex.index("\\toprule") < tex.index("\\midrule") < tex.index("\\bottomrule"), name
        assert tex.count("\\begin{tabular}") == 1 and f"\\label{{tab:{name}}}" in tex
        header = tex.split("\\toprule\n", 1)[1].split("\\midrule", 1)[0]
        columns = len(re.split(r"(?<!\\)&", header))
        spec = re.search(r"\\begin\{tabular\}\{([lr]+)\}", tex).group(1)
        assert len(spec) == columns, name
        assert all(len(row) == columns for row in body_rows(tex)), name


def test_hostile_names_are_escaped(written: dict[str, str]) -> None:
    tex = written["party_findings"]
    assert ESCAPED_PARTY in tex
    assert "\\input{" not in tex and "$x_1$" not in tex
    assert "Model \\& Co\\_2" in written["leaderboard"]  # a label is escaped too
    assert "GPT-5.4" in written["leaderboard"]  # models by display name


def test_latex_text_escapes_every_special_character() -> None:
    assert latex_text("&%$#_{}~^\\") == (
        r"\&\%\$\#\_\{\}\textasciitilde{}\textasciicircum{}\textbackslash{}"
    )
    assert latex_text("line\nbreak\x00") == "line break"  # one line, no control characters


def test_values_are_the_tables_values_in_percent(written: dict[str, str]) -> None:
    analyses = analysis_tables(hostile_cells(), resamples=30)
    board = analyses.leaderboard.set_index("model")
    rows = {row[0].strip(): row for row in body_rows(written["leaderboard"])}
    emi = board.loc["gpt_5_4", "emi"]
    assert rows["GPT-5.4"][-1].strip().startswith(f"{100 * emi:.1f} [")


def test_the_robustness_table_gives_each_dispersion_with_its_interval(
    written: dict[str, str],
) -> None:
    analyses = analysis_tables(hostile_cells(), resamples=30)
    spread = analyses.dispersion.set_index("model").loc["gpt_5_4"]
    assert spread["dispersion_ci_low"] <= spread["dispersion"] <= spread["dispersion_ci_high"]
    rows = {row[0].strip(): row for row in body_rows(written["robustness"])}
    low, high = (f"{100 * spread[c]:.1f}" for c in ("dispersion_ci_low", "dispersion_ci_high"))
    assert rows["GPT-5.4"][-1].strip() == f"{100 * spread['dispersion']:.1f} [{low}, {high}]"
    assert "Dispersion (pp) [95\\% CI]" in written["robustness"]


def test_table_formats() -> None:
    assert parse_table_formats("latex") == ("csv", "latex")
    assert parse_table_formats("csv") == ("csv",)
    with pytest.raises(TableFormatError, match="unknown table format 'xlsx'"):
        parse_table_formats("xlsx")


def test_report_writes_latex_tables_only_when_asked(tmp_path: Path) -> None:
    run = tmp_path / "run"
    RunDir(run).write_cells(hostile_cells())
    runner = CliRunner()
    plain = runner.invoke(
        app,
        [
            "report",
            str(run),
            "--out",
            str(tmp_path / "a"),
            "--figure-format",
            "svg",
            "--max-items",
            "5",
        ],
    )
    assert plain.exit_code == 0, plain.output
    assert not list((tmp_path / "a" / "tables").glob("*.tex"))
    latex = runner.invoke(
        app,
        [
            "report",
            str(run),
            "--out",
            str(tmp_path / "b"),
            "--tables",
            "latex",
            "--figure-format",
            "svg",
            "--label",
            "e=Demo 2025",
        ],
    )
    assert latex.exit_code == 0, latex.output
    names = {p.name for p in (tmp_path / "b" / "tables").glob("*.tex")}
    assert names == {"leaderboard.tex", "robustness.tex", "party_findings.tex"}
    csv_a = {p.name: p.read_bytes() for p in (tmp_path / "a" / "tables").glob("*.csv")}
    csv_b = {p.name: p.read_bytes() for p in (tmp_path / "b" / "tables").glob("*.csv")}
    assert csv_a == csv_b  # the CSV tables do not change
    bad = runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "c"), "--tables", "x"])
    assert bad.exit_code != 0 and "unknown table format 'x'" in bad.output

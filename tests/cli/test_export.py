"""``polistemics export dataset``: the command writes the tables and says where; errors are one
line and exit 2."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from export_dataset.conftest import demo_run  # noqa: F401 (the fixture; tests/ is on sys.path)
from polistemics.cli import build_app


def test_export_dataset_writes_every_table(demo_run: Path, tmp_path: Path) -> None:  # noqa: F811
    pytest.importorskip("pyarrow", reason="Parquet needs pyarrow (the dataset extra)")
    out = tmp_path / "dataset"
    result = CliRunner().invoke(
        build_app(["export"]),
        ["export", "dataset", str(demo_run), "--out", str(out), "--answers", "--verdicts"],
    )
    assert result.exit_code == 0, result.output
    for config in ("items", "ground_truth", "answers", "verdicts", "panel_verdicts"):
        assert f"{config}: " in result.output
        assert len(list((out / config).glob("*.parquet"))) == 1
    assert (out / "README.md").is_file()


def test_a_folder_that_is_not_a_run_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        build_app(["export"]), ["export", "dataset", str(tmp_path), "-o", str(tmp_path / "out")]
    )
    assert result.exit_code == 2
    assert "no environment items" in result.output


def test_without_pyarrow_it_names_the_extra(demo_run: Path, tmp_path: Path, monkeypatch) -> None:  # noqa: F811
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    result = CliRunner().invoke(
        build_app(["export"]), ["export", "dataset", str(demo_run), "-o", str(tmp_path / "out")]
    )
    assert result.exit_code == 2
    assert "pip install 'polistemics[dataset]'" in result.output

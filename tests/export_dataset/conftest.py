"""A finished demo run (the whole pipeline against the project's test server, as the report
tests build it) and its dataset export, shared by the export and inspect tests."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from polistemics.export_dataset import export_dataset
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study
from polistemics.testing import FakeOpenAIServer
from report.conftest import write_demo_study  # tests/ is on sys.path


def build_demo_run(folder: Path) -> Path:
    with FakeOpenAIServer() as server:
        config = load_config(write_demo_study(folder, server.base_url))
        study = Study(config, config.run_dir(), log=lambda message: None)
        result = asyncio.run(study.execute(quiet=True))
        finish_run(study, result)
    return config.run_dir()


_BUILT: list[Path] = []  # the run, built once per process


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Read-only. The fixture is imported by other folders' tests (cli, inspect), where pytest
    counts it as a fixture of its own, so the run is kept here and built only once."""
    if not _BUILT:
        _BUILT.append(build_demo_run(tmp_path_factory.mktemp("dataset-study")))
    return _BUILT[0]


@pytest.fixture(scope="session")
def demo_dataset(demo_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo run exported with its answers and verdicts."""
    pytest.importorskip("pyarrow", reason="Parquet needs pyarrow (the dataset extra)")
    out = tmp_path_factory.mktemp("dataset") / "out"
    export_dataset(demo_run, out, answers=True, verdicts=True)
    return out


@pytest.fixture
def run_copy(demo_run: Path, tmp_path: Path) -> Path:
    """A private copy of the demo run (tests may edit it)."""
    target = tmp_path / "run"
    shutil.copytree(demo_run, target, ignore=shutil.ignore_patterns("report", "store.sqlite*"))
    return target

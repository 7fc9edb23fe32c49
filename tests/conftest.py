"""Fixtures shared by the whole test suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import file_costs  # tests/ is on sys.path
from polistemics.cli import single_threaded_blas

# As the command line does, before numpy is imported: a run made in a test's own process
# (run_cli) computes as `polistemics` does, and no BLAS thread spins beside the other worker.
single_threaded_blas()

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _shared_dir() -> Path | None:
    candidates = [os.environ.get("POLISTEMICS_SHARED"), REPO_ROOT.parent / "shared"]
    for candidate in candidates:
        if candidate and (Path(candidate) / "spec").is_dir():
            return Path(candidate)
    return None


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only ../shared folder (paper, real VAA data, authors' release); skip without it."""
    found = _shared_dir()
    if found is None:
        pytest.skip("../shared is not present (real VAA data and the authors' release live there)")
    return found


@pytest.fixture(scope="session")
def release_dir(shared_dir: Path) -> Path:
    """The authors' Dutch release experiment folder."""
    path = (
        shared_dir / "reference" / "polistemics-v1.0" / "data" / "experiments" / "nl_tk2025_full_v1"
    )
    if not path.is_dir():
        pytest.skip(f"release folder missing: {path}")
    return path


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def wahlomat_election() -> tuple[Path, str, str | None]:
    """(data dir, config source, party scope) of a Wahl-O-Mat election for end-to-end runs.

    The real Bundestag 2025 data from ../shared with the paper's seven parties when present,
    else the small fixture election (three parties), so such a test always runs.
    """
    shared = _shared_dir()
    if shared is not None and (shared / "data" / "wahlomat" / "bundestagswahl2025").is_dir():
        return shared / "data", "wahlomat:bundestagswahl2025", "de-btw2025"
    return FIXTURES / "sources" / "data", "wahlomat:teststadt2099", None


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-file-costs",
        metavar="PATH",
        help="write each test file's CPU seconds to PATH (JSON), as tests/file_costs.json holds",
    )


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("--record-file-costs")
    if path:
        recorder = file_costs.CostRecorder(Path(path), file_costs.is_xdist_worker())
        config.pluginmanager.register(recorder, "file-costs-recorder")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The costliest files first (see tests/file_costs.py): `make test` keeps this order."""
    file_costs.order_by_cost(items, file_costs.read_costs())

"""``main()`` imports only the modules of the command it runs, and a command imports the heavy
libraries only where it uses them (issue 26: start-up is a cost every run and every test that
starts the command line pays)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from command_probe import after_command

from polistemics.cli import COMMAND_MODULES, requested_command
from polistemics.testing import FakeOpenAIServer
from run.study_helpers import write_study

# Libraries that cost tenths of a second of CPU, or tens of MB, each to import.
HEAVY = (
    "pandas",
    "numpy",
    "polars",
    "pyarrow",
    "matplotlib",
    "scipy",
    "statsmodels",
    "jinja2",
    "aiohttp",
    "uvloop",
)
WATCHED = (*HEAVY, "polistemics.report.build", "polistemics.run.pipeline")


def _loaded(*args: str, cwd: Path | None = None) -> tuple[set[str], str]:
    report = f'print("LOADED", " ".join(sorted(m for m in {WATCHED!r} if m in sys.modules)))'
    done = after_command(list(args), report, cwd=cwd)
    line = next(x for x in done.stdout.splitlines() if x.startswith("LOADED"))
    return set(line.removeprefix("LOADED").split()), done.stdout


def test_the_command_is_the_first_argument_that_is_not_an_option():
    assert requested_command(["annotate", "serve", "runs/x"]) == "annotate"
    assert requested_command(["--version"]) is None
    assert requested_command([]) is None
    assert requested_command(["anotate"]) is None  # a typo gets the full app's suggestion


def test_a_light_command_does_not_load_the_report():
    loaded, out = _loaded("annotate", "--help")
    assert "matplotlib" not in loaded and "polistemics.report.build" not in loaded
    assert "serve" in out and "stats" in out and "sample" in out


@pytest.mark.parametrize(
    "args", [["--help"], ["run", "--help"], ["report", "--help"], ["compare", "--help"]]
)
def test_help_loads_no_heavy_library(args):
    """Every command is registered for ``--help`` (its options and defaults shown), and none of
    their libraries is imported for it."""
    loaded, out = _loaded(*args)
    assert loaded == set(), f"{' '.join(args)} imported {sorted(loaded)}"
    if args == ["--help"]:
        assert all(command in out for command in COMMAND_MODULES)
    else:
        assert "--figure-format" in out


def test_a_dry_run_loads_neither_the_report_nor_the_client_nor_the_statistics(tmp_path: Path):
    """The plan needs the pipeline's stages, not the report (matplotlib, jinja2), the model
    client (aiohttp), the statistics (scipy, statsmodels) or the tables (pandas, polars): the
    stages name their analyses and tasks' definitions where they use them."""
    loaded, out = _loaded("run", "demo", "--dry-run", cwd=tmp_path)
    assert "total:" in out and "polistemics.run.pipeline" in loaded  # the plan was made
    unexpected = {"matplotlib", "jinja2", "aiohttp", "uvloop", "scipy", "statsmodels", "polars"}
    unexpected |= {"pandas", "pyarrow"}
    assert loaded & unexpected == set()
    assert "polistemics.report.build" not in loaded


def test_a_rerun_with_nothing_to_redo_loads_no_report(tmp_path: Path):
    """A rerun whose records and report are current writes run.json only: it draws nothing, so
    it loads neither the report (matplotlib, jinja2), the statistics (scipy, statsmodels) nor
    the tables (pandas, polars)."""
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, ablations="[]")
        first, _ = _loaded("run", str(config), "--quiet")
        server.reset_stats()
        again, out = _loaded("run", str(config), "--quiet")
        assert server.stats().requests == 0
    assert "polistemics.report.build" in first and "matplotlib" in first  # the probe's control
    assert "model calls made: 0" in out and "report.html" in out
    drawing = {"matplotlib", "jinja2", "scipy", "statsmodels", "pandas", "polars"}
    drawing.add("polistemics.report.build")
    assert again & drawing == set(), f"a rerun with nothing to redo imported {sorted(again)}"


def test_the_probe_sees_what_a_command_imports(fixtures_dir: Path):
    """The probe's control: scoring a release folder does load pandas (so an empty list above
    means nothing was imported, not that the probe saw nothing)."""
    loaded, out = _loaded("score", str(fixtures_dir / "scoring" / "release_small"))
    assert "pandas" in loaded and "EMI" in out


def test_a_run_stops_on_the_batch_error_once_the_batch_collector_is_loaded(monkeypatch):
    """``run`` names ``BatchUnavailable`` (aiohttp's module) only when the collector is loaded,
    which it is whenever a batch call could have raised it."""
    from polistemics.cli.run import _stopping_errors
    from polistemics.llm.batch.collector import BatchUnavailable
    from polistemics.llm.types import BudgetExceeded

    assert _stopping_errors() == (BudgetExceeded, BatchUnavailable)
    monkeypatch.delitem(sys.modules, "polistemics.llm.batch.collector")
    assert _stopping_errors() == (BudgetExceeded,)

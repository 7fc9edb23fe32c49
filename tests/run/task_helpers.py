"""The set-up the end-to-end tests of the tasks beyond the paper's share (tests/run/test_*_task.py):
a small study on the test server asking a task, run and finished; its tables read back; the
rerun check; the report opened in Chromium."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pytest
from study_helpers import write_study

from polistemics.report.content import ReportOptions
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study
from polistemics.runlog import RunDir
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.faults import Responder


def write_task_study(
    folder: Path,
    base_url: str,
    tasks: Sequence[str],
    environments: Sequence[str],
    statements: Sequence[int],
    source: Path | None = None,
) -> Path:
    """A study of the demo election (or ``source``, in the generic format) asking ``tasks``, the
    stance coder on judge-a, no ablations, a few statements and environments: the
    party-position part stays small."""
    config_path = write_study(
        folder,
        base_url,
        ablations="[]",
        tasks=json.dumps(list(tasks)),
        stance_coder='"judge-a"',
        environments=json.dumps(list(environments)),
    )
    text = config_path.read_text(encoding="utf-8") + f"statements = {list(statements)}\n"
    if source is not None:
        text = text.replace('source = "demo"', f'source = "generic:{source}"')
    config_path.write_text(text, encoding="utf-8")
    return config_path


def execute(config_path: Path, resamples: int = 100) -> Path:
    """The study run and finished (its report with SVG figures); its run directory."""
    config = load_config(config_path)
    study = Study(config, config.run_dir(), log=lambda m: None)
    options = ReportOptions(bootstrap_resamples=resamples, figure_formats=("svg",))
    finish_run(study, asyncio.run(study.execute(quiet=True)), options)
    return config.run_dir()


def task_table(run_dir: Path, name: str) -> pd.DataFrame:
    """``tables/<name>.csv``, blanks read as missing."""
    return pd.read_csv(
        RunDir(run_dir).tables / f"{name}.csv", keep_default_na=False, na_values=[""]
    )


def check_rerun_and_removal(
    tmp_path: Path,
    responder: Responder,
    *,
    task: str,
    statements: Sequence[int],
    read_files: Callable[[Path], object | None],
    table: str,
    section_id: str,
) -> None:
    """A rerun of a study asking ``task`` makes no new call and rewrites the same files and
    table; the same study without the task removes them, its run.json entry and its section."""
    tasks = ["party_position", task]
    with FakeOpenAIServer(responder=responder) as server:
        config_path = write_task_study(
            tmp_path, server.base_url, tasks, ("baseline", "ie_availability_absent"), statements
        )

        def run() -> tuple[Path, int]:
            server.reset_stats()
            run_dir = execute(config_path)
            return run_dir, server.stats().requests

        run_dir, first = run()
        files = read_files(run_dir)
        written = (RunDir(run_dir).tables / f"{table}.csv").read_bytes()
        _, second = run()
        assert first > 0 and second == 0
        assert read_files(run_dir) == files
        assert (RunDir(run_dir).tables / f"{table}.csv").read_bytes() == written
        text = config_path.read_text(encoding="utf-8")
        config_path.write_text(text.replace(f"tasks = {json.dumps(tasks)}", ""), encoding="utf-8")
        run()
    assert read_files(run_dir) is None
    assert not list(RunDir(run_dir).tables.glob(f"{task}_*.csv"))
    manifest = json.loads(RunDir(run_dir).manifest.read_text(encoding="utf-8"))
    assert "tasks" not in manifest and "tasks" not in manifest["config"]
    html = (run_dir / "report" / "report.html").read_text(encoding="utf-8")
    assert f'id="{section_id}"' not in html


@contextmanager
def report_in_chromium(report: Path) -> Iterator[tuple[object, list[str]]]:
    """The report open in headless Chromium once its item browser is ready, and the console
    errors and page errors it logs (skips without Playwright or Chromium)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    executable = Path("/usr/bin/chromium")
    if not executable.is_file():
        pytest.skip("Chromium is not installed (apt-get install -y chromium)")
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(executable), args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(report.resolve().as_uri())
        page.wait_for_selector("#item-browser[data-ready=true]", timeout=20_000)
        yield page, errors
        browser.close()

"""run.disk_space: a study too large for the disk's free space is refused before its first call,
with the estimate; one that fits runs; the estimate is near what a run writes."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import NamedTuple

import pytest
from study_helpers import run_cli, write_study

from polistemics.run import disk_space
from polistemics.run.config import load_config
from polistemics.run.disk_space import DiskSpaceError, check_disk_space, estimate_bytes
from polistemics.run.pipeline import load_elections, resolve_endpoints
from polistemics.run.plan import PlanRow
from polistemics.runlog import STORE_FILE
from polistemics.testing import FakeOpenAIServer

# A small study: the demo election, two environments, no ablation.
SMALL = {"environments": '["baseline", "ie_availability_absent"]', "ablations": "[]"}


class Usage(NamedTuple):
    total: int
    used: int
    free: int


def disk_with(monkeypatch: pytest.MonkeyPatch, free: int) -> None:
    monkeypatch.setattr(
        disk_space.shutil, "disk_usage", lambda path: Usage(10**12, 10**12 - free, free)
    )


def dry_run_disk(config: Path, run_dir: Path) -> dict:
    result = run_cli("run", str(config), "--dry-run", "--json", "--out", str(run_dir))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["disk"]


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory):
    """The small study run with exactly its estimate free: the run directory, the dry run's
    estimate and the requests the server saw."""
    tmp_path = tmp_path_factory.mktemp("disk")
    with FakeOpenAIServer() as server, pytest.MonkeyPatch.context() as monkeypatch:
        config = write_study(tmp_path, server.base_url, **SMALL)
        run_dir = tmp_path / "run"
        estimate = dry_run_disk(config, run_dir)
        disk_with(monkeypatch, estimate["needed"])
        result = run_cli("run", str(config), "-q")
        assert result.returncode == 0, result.stderr
        requests = server.stats().requests
    return config, run_dir, estimate, requests


def test_a_study_that_fits_runs(finished) -> None:
    _, run_dir, estimate, requests = finished
    assert estimate["new_calls"] > 0 and estimate["new_answers"] > 0
    assert requests > 0 and (run_dir / "report" / "report.html").is_file()


def test_the_estimate_is_near_what_the_run_wrote(finished) -> None:
    _, run_dir, estimate, _ = finished
    written = folder_bytes(run_dir)
    assert 0.5 <= written / estimate["needed"] <= 2, (written, estimate["needed"])


def test_a_study_too_large_is_refused_before_any_call(tmp_path, monkeypatch) -> None:
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, **SMALL)
        run_dir = tmp_path / "run"
        estimate = dry_run_disk(config, run_dir)
        disk_with(monkeypatch, estimate["needed"] - 1)
        result = run_cli("run", str(config), "-q")
        assert server.stats().requests == 0
    assert result.returncode == 2
    assert "not enough disk space" in result.stderr
    assert f"about {disk_space._size(estimate['needed'])}" in result.stderr
    assert f"{disk_space._size(estimate['needed'] - 1)} is free" in result.stderr
    assert "--no-check-disk-space" in result.stderr and "check_disk_space = false" in result.stderr
    assert not (run_dir / STORE_FILE).exists()


def test_no_check_disk_space_runs_it_anyway(tmp_path, monkeypatch) -> None:
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, **SMALL)
        disk_with(monkeypatch, 1000)
        result = run_cli("run", str(config), "-q", "--no-check-disk-space")
        assert result.returncode == 0, result.stderr
        assert server.stats().requests > 0


def test_the_config_key_turns_the_check_off(tmp_path, monkeypatch) -> None:
    config = load_config(write_study(tmp_path, "http://127.0.0.1:9/v1", **SMALL))
    endpoints = resolve_endpoints(config, _registry(config))
    disk_with(monkeypatch, 1000)
    with pytest.raises(DiskSpaceError, match="check_disk_space = false"):
        check_disk_space(config, load_elections(config), endpoints, tmp_path / "run")
    off = config.model_copy(update={"check_disk_space": False})
    assert check_disk_space(off, load_elections(off), endpoints, tmp_path / "run") is None
    # the default is left out of run.json's config, as before the key existed
    assert "check_disk_space" not in config.model_dump(mode="json")
    assert off.model_dump(mode="json")["check_disk_space"] is False


def test_a_resume_counts_only_the_calls_not_in_the_store(finished, monkeypatch) -> None:
    config_path, run_dir, fresh, _ = finished
    config = load_config(config_path)
    endpoints = resolve_endpoints(config, _registry(config))
    disk_with(monkeypatch, 1000)
    estimate = check_disk_space(config, load_elections(config), endpoints, run_dir)
    assert estimate is not None and estimate.new_calls == 0 and estimate.needed == 0
    # with a third of the stored judge calls gone, those count again (and only those)
    copy = run_dir.parent / "resume"
    copy.mkdir()
    for path in run_dir.glob(f"{STORE_FILE}*"):  # with its write-ahead log, if any
        shutil.copy(path, copy / path.name)
    with closing(sqlite3.connect(copy / STORE_FILE)) as db, db:
        keys = [k for (k,) in db.execute("SELECT key FROM calls WHERE stage = 'judge'")]
        db.executemany("DELETE FROM calls WHERE key = ?", [(k,) for k in keys[: len(keys) // 3]])
    # a disk too small for the study from scratch: it is planned again against the store
    disk_with(monkeypatch, fresh["needed"] - 1)
    partial = check_disk_space(config, load_elections(config), endpoints, copy)
    deleted = len(keys) // 3
    # (the demo's judge seats are one model: a stored call can serve all three)
    assert partial is not None and deleted <= partial.new_calls <= 3 * deleted
    assert partial.new_answers == 0 and 0 < partial.needed < fresh["needed"]


def test_the_estimate_grows_with_new_calls_and_their_tokens() -> None:
    def row(stage: str, calls: int, cached: int, tokens_in: int, tokens_out: int) -> PlanRow:
        return PlanRow(stage, "m", calls, cached, tokens_in, tokens_out, None, "none")

    one = estimate_bytes([row("judge", 10, 0, 1000, 100)], fixed=False)
    assert estimate_bytes([row("judge", 20, 0, 2000, 200)], fixed=False) == pytest.approx(2 * one)
    assert estimate_bytes([row("judge", 10, 10, 0, 0)], fixed=False) == 0  # all stored
    # an answer writes more files than a judge record
    assert estimate_bytes([row("answer", 10, 0, 1000, 100)], fixed=False) > one
    assert estimate_bytes([row("navigation_answer", 10, 0, 1000, 100)], fixed=False) > one


def _registry(config):
    from polistemics.llm.registry import default_registry

    return default_registry(config.models_file)

"""The finish writes its score files, score tables and analysis tables, and records its records
step, in forked side processes: the files are those the finish writes when it does all of its
work in one process."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from study_helpers import (
    finish_hashes_by_switch,
    output_hashes,
    run_cli,
    whole_finish,
    write_study,
)

from polistemics.llm.store import RunStore
from polistemics.run import finish, side_process
from polistemics.run.side_process import can_fork_side_process
from polistemics.testing import FakeOpenAIServer


def forked_pools(monkeypatch: pytest.MonkeyPatch) -> list:
    """The side process's pools made from now on (one per fork)."""
    pools: list = []
    real_pool = side_process.ProcessPoolExecutor

    def counted(*args, **kwargs):
        pools.append(args)
        return real_pool(*args, **kwargs)

    monkeypatch.setattr(side_process, "ProcessPoolExecutor", counted)
    return pools


@pytest.mark.skipif(not can_fork_side_process(), reason="the platform cannot fork or one core")
def test_the_side_process_writes_the_files_one_process_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pools = forked_pools(monkeypatch)
    with FakeOpenAIServer() as server:
        hashes = finish_hashes_by_switch(
            tmp_path, server.base_url, "POLISTEMICS_SIDE_PROCESS", monkeypatch.setenv
        )
    # only the finish with the side process on forked: the score files, the records step
    assert len(pools) == 2
    assert "scores/cells.csv" in hashes["on"] and "tables/model_scores.csv" in hashes["on"]
    assert hashes["on"] == hashes["off"]


@pytest.mark.skipif(not can_fork_side_process(), reason="the platform cannot fork or one core")
def test_a_study_with_more_cells_than_the_limit_forks_no_side_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The side process's memory grows with the study: above ``SIDE_PROCESS_MAX_CELLS`` the
    finish does its work in one process, with the same files."""
    pools = forked_pools(monkeypatch)
    monkeypatch.setenv("POLISTEMICS_SIDE_PROCESS", "on")
    hashes = {}
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, ablations="[]")
        for limit in (0, finish.SIDE_PROCESS_MAX_CELLS):
            monkeypatch.setattr(finish, "SIDE_PROCESS_MAX_CELLS", limit)
            whole_finish(tmp_path / "run", config)
            hashes[limit] = output_hashes(tmp_path / "run")
            if limit == 0:
                assert pools == []  # every study has more cells than none
    assert len(pools) == 2  # under the limit: the score files and the records step
    assert hashes[0] == hashes[finish.SIDE_PROCESS_MAX_CELLS]


@pytest.mark.skipif(not can_fork_side_process(), reason="the platform cannot fork or one core")
def test_the_call_stats_thread_has_ended_before_each_fork(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store's call stats are read by a thread while the scores are tallied; a fork while
    that thread is inside SQLite could copy a lock no thread of the child releases. Each fork
    finds no such thread alive, and run.json has the store's stats."""
    threads_at_fork: list[list[str]] = []
    real_pool = side_process.ProcessPoolExecutor

    def looked_at(*args, **kwargs):
        threads_at_fork.append([thread.name for thread in threading.enumerate()])
        return real_pool(*args, **kwargs)

    real_stats = finish._call_stats

    def slow_stats(run_dir: Path) -> list[dict]:
        time.sleep(1.0)  # longer than the small study's tally: still reading when it ends
        return real_stats(run_dir)

    monkeypatch.setattr(side_process, "ProcessPoolExecutor", looked_at)
    monkeypatch.setattr(finish, "_call_stats", slow_stats)
    monkeypatch.setenv("POLISTEMICS_SIDE_PROCESS", "on")
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, ablations="[]")
        whole_finish(tmp_path / "run", config)
    assert len(threads_at_fork) == 2
    assert not any(
        name.startswith(finish.CALL_STATS_THREAD) for names in threads_at_fork for name in names
    )
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    with RunStore(tmp_path / "run" / "store.sqlite") as store:
        assert manifest["calls"] == store.call_stats() != []


def test_an_error_reading_the_call_stats_is_the_finishs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The thread's error is raised where the finish asks for the stats, not lost with it."""

    def broken(run_dir: Path) -> list[dict]:
        raise sqlite3.OperationalError("disk I/O error")

    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, ablations="[]")
        assert run_cli("run", str(config), "-q").returncode == 0
        monkeypatch.setattr(finish, "_call_stats", broken)
        for folder in ("tables", "scores", "exports"):
            shutil.rmtree(tmp_path / "run" / folder)
        done = run_cli("run", str(config), "-q")
    assert done.returncode != 0
    assert "disk I/O error" in done.stderr

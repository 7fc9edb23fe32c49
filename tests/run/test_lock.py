"""One process per run directory: a second ``polistemics run`` is refused naming the holder, and a
lock left by a killed process does not block the resume."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from study_helpers import run_cli, start_run, write_study

from polistemics.run.lock import LOCK_INFO_FILE, RunLock, RunLocked, describe_holder
from polistemics.testing import FakeOpenAIServer

HOLD = """
import sys, time
from pathlib import Path
from polistemics.run.lock import RunLock
lock = RunLock(Path(sys.argv[1]))
lock.acquire()
print("held", flush=True)
time.sleep(60)
"""


def hold_in_child(run_dir: Path) -> subprocess.Popen:
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(run_dir)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    return child


def calls_stored(store_path: Path) -> int:
    try:
        with sqlite3.connect(store_path, timeout=5) as db:
            return db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def wait_for_calls(worker: subprocess.Popen, store_path: Path, at_least: int) -> None:
    deadline = time.monotonic() + 120
    while calls_stored(store_path) < at_least:
        assert worker.poll() is None, worker.stderr.read() if worker.stderr else ""
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_a_held_lock_refuses_another_process_naming_it(tmp_path: Path) -> None:
    child = hold_in_child(tmp_path / "run")
    try:
        with pytest.raises(RunLocked) as info:
            RunLock(tmp_path / "run").acquire()
        message = str(info.value)
        assert f"process {child.pid} on host {socket.gethostname()}" in message
        assert str(tmp_path / "run") in message
    finally:
        child.kill()
        child.wait()
    with RunLock(tmp_path / "run") as lock:  # the dead child's lock is gone with it
        lock.acquire()
        assert lock.held
        info_file = json.loads((tmp_path / "run" / LOCK_INFO_FILE).read_text())
        assert info_file["pid"] == os.getpid()
    assert not lock.held


def test_holder_details_from_a_hostile_info_file_are_shown_as_text(tmp_path: Path) -> None:
    (tmp_path / LOCK_INFO_FILE).write_text(
        json.dumps({"pid": True, "host": "evil\x1b[2J\nhost", "started": 5})
    )
    assert describe_holder(tmp_path) == "process ? on host evil?[2J?host (started ?)"
    (tmp_path / LOCK_INFO_FILE).write_text("not json")
    assert "no holder details" in describe_holder(tmp_path)


def test_a_second_run_of_the_same_directory_is_refused(tmp_path: Path) -> None:
    with FakeOpenAIServer(latency=0.05) as server:
        config = write_study(tmp_path, server.base_url)
        store_path = tmp_path / "run" / "store.sqlite"
        first = start_run(config)
        try:
            wait_for_calls(first, store_path, 5)
            # The second run is refused before any work: in this process (a third process would
            # pay the imports again: study_helpers.run_cli).
            second = run_cli("run", str(config), "-q")
            err = second.stderr
            assert second.returncode == 2
            assert err.count("\n") == 1 and err.startswith("error: ")
            assert f"is in use by process {first.pid} on host {socket.gethostname()}" in err
            server.latency = 0.0  # it kept the first run busy; the rest needs no wait
            assert first.wait(timeout=120) == 0, first.stderr.read()
        finally:
            if first.poll() is None:
                first.kill()
                first.wait()
    assert (tmp_path / "run" / "run.json").is_file()


def test_after_sigkill_of_the_holder_the_resume_runs(tmp_path: Path) -> None:
    with FakeOpenAIServer(latency=0.05) as server:
        config = write_study(tmp_path, server.base_url)
        store_path = tmp_path / "run" / "store.sqlite"
        first = start_run(config)
        wait_for_calls(first, store_path, 5)
        first.send_signal(signal.SIGKILL)
        first.wait()
        stale = json.loads((tmp_path / "run" / LOCK_INFO_FILE).read_text())
        assert stale["pid"] == first.pid  # the killed run's details are still on disk
        server.latency = 0.0  # it let the kill land mid-run; the resume is not killed
        resumed = start_run(config)
        _, err = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, err
    assert (tmp_path / "run" / "run.json").is_file()
    assert json.loads((tmp_path / "run" / LOCK_INFO_FILE).read_text())["pid"] == resumed.pid

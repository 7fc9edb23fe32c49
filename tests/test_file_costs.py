"""The suite's own scheduling aid (tests/file_costs.py): files ordered by measured cost."""

from __future__ import annotations

import json
import multiprocessing.forkserver
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import file_costs


@dataclass
class Item:
    nodeid: str


def test_costliest_files_come_first_and_each_file_stays_together_in_order() -> None:
    items = [
        Item("tests/a.py::one"),
        Item("tests/b.py::one"),
        Item("tests/a.py::two"),
        Item("tests/c.py::Class::one"),
        Item("tests/b.py::two"),
    ]
    file_costs.order_by_cost(items, {"tests/b.py": 9.0, "tests/c.py": 0.1})
    assert [i.nodeid for i in items] == [
        "tests/b.py::one",
        "tests/b.py::two",
        "tests/a.py::one",  # unknown: DEFAULT_COST, ahead of the cheaper c.py
        "tests/a.py::two",
        "tests/c.py::Class::one",
    ]


def test_files_of_equal_cost_keep_their_collection_order() -> None:
    items = [Item("tests/z.py::t"), Item("tests/y.py::t"), Item("tests/x.py::t")]
    file_costs.order_by_cost(items, {})
    assert [i.nodeid for i in items] == ["tests/z.py::t", "tests/y.py::t", "tests/x.py::t"]


def test_a_missing_or_unreadable_table_is_no_table(tmp_path: Path) -> None:
    assert file_costs.read_costs(tmp_path / "absent.json") == {}
    (tmp_path / "bad.json").write_text("[1, 2]")
    assert file_costs.read_costs(tmp_path / "bad.json") == {}


def test_recorded_costs_are_summed_per_file_and_merged_into_the_table(tmp_path: Path) -> None:
    table = tmp_path / "costs.json"
    table.write_text(json.dumps({"tests/old.py": 3.0, "tests/a.py": 50.0}))
    recorder = file_costs.CostRecorder(table, is_worker=False)
    recorder.parts.write_text(
        "".join(
            json.dumps({"file": f, "cpu": s}) + "\n"
            for f, s in [("tests/a.py", 1.0), ("tests/b.py", 4.0), ("tests/a.py", 2.5)]
        )
    )
    recorder.pytest_sessionfinish(session=None)
    written = json.loads(table.read_text())
    assert written == {"tests/b.py": 4.0, "tests/a.py": 3.5, "tests/old.py": 3.0}
    assert list(written) == ["tests/b.py", "tests/a.py", "tests/old.py"]  # costliest first
    assert not recorder.parts.exists()


def test_the_fork_servers_cpu_counts_in_the_cpu_seconds(monkeypatch) -> None:
    """The tests' ``polistemics`` children are forked by multiprocessing's fork server
    (tests/run/study_helpers.py), not by this process: its CPU is read from /proc."""
    if not Path("/proc/self/stat").is_file():
        pytest.skip("no /proc on this system")
    monkeypatch.setattr(multiprocessing.forkserver._forkserver, "_forkserver_pid", None)
    assert file_costs.fork_server_seconds() == 0.0
    spin = (
        "import time, sys\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\n"
    )
    server = subprocess.Popen(
        [sys.executable, "-c", spin + "print('spun', flush=True)\ntime.sleep(60)"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "spun"
        monkeypatch.setattr(multiprocessing.forkserver._forkserver, "_forkserver_pid", server.pid)
        before = file_costs.cpu_seconds() - file_costs.fork_server_seconds()
        assert file_costs.fork_server_seconds() >= 0.29
        assert file_costs.cpu_seconds() - before >= 0.29
    finally:
        server.kill()
        server.wait()

"""The test files' measured costs, so that `make test` starts the costliest files first.

`make test` runs each file on one pytest-xdist worker (``--dist loadfile``). By default xdist
hands out files by their number of tests, most first; a file of a few end-to-end studies then
starts last and one worker runs it alone at the end while the other idles. Ordering the files
by their measured cost (``file_costs.json``, seconds per file), costliest first, and telling
xdist to keep that order (``--no-loadscope-reorder``), balances the two workers.

The costs are CPU seconds of one measured run (tests' own process, the children they
waited for, and the fork server that starts their ``polistemics`` child processes: see
tests/run/study_helpers.py). Refresh them after large changes with::

    .venv/bin/python -m pytest -q -n auto --dist loadfile --record-file-costs tests/file_costs.json

A file not in the table (a new one) counts as ``DEFAULT_COST``; the order only decides what
starts first, never whether a test runs.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from pathlib import Path

import pytest

COSTS = Path(__file__).with_name("file_costs.json")
DEFAULT_COST = 1.0  # seconds: about the median file's


def read_costs(path: Path = COSTS) -> dict[str, float]:
    """File (relative to the repository, as in a test's node id) -> seconds; {} when absent."""
    try:
        return {str(k): float(v) for k, v in json.loads(path.read_text()).items()}
    except (OSError, ValueError, AttributeError):
        return {}


def order_by_cost(items: list[pytest.Item], costs: dict[str, float]) -> None:
    """Reorder ``items`` in place: files by cost, costliest first; a file's tests keep their
    order and stay together (module fixtures are built once)."""
    first_seen: dict[str, int] = {}
    for item in items:
        first_seen.setdefault(item.nodeid.split("::", 1)[0], len(first_seen))

    def key(item: pytest.Item) -> tuple[float, int]:
        file = item.nodeid.split("::", 1)[0]
        return (-costs.get(file, DEFAULT_COST), first_seen[file])

    items.sort(key=key)


def cpu_seconds() -> float:
    """CPU of this process (all threads), of the children it has waited for, and of the fork
    server that starts the tests' ``polistemics`` child processes (tests/run/study_helpers.py)
    with the children it has waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (
        own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + fork_server_seconds()
    )


def fork_server_seconds() -> float:
    """CPU seconds of multiprocessing's fork server of this process and of its reaped children
    (0 when none was started, or not on Linux)."""
    server = sys.modules.get("multiprocessing.forkserver")
    pid = getattr(getattr(server, "_forkserver", None), "_forkserver_pid", None)
    if not pid:
        return 0.0
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()  # from field 3 (state) on: utime is field 14
    return sum(int(ticks) for ticks in fields[11:15]) / os.sysconf("SC_CLK_TCK")


class CostRecorder:
    """``--record-file-costs PATH``: each process appends one line per test (file, CPU seconds)
    to ``PATH.parts``; the main process sums them per file into ``PATH`` at the end (files it
    did not run keep their earlier figure)."""

    def __init__(self, path: Path, is_worker: bool) -> None:
        self.path = path
        self.parts = path.with_name(path.name + ".parts")
        self.is_worker = is_worker
        if not is_worker:
            self.parts.unlink(missing_ok=True)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None):
        start = cpu_seconds()
        yield
        line = json.dumps({"file": item.nodeid.split("::", 1)[0], "cpu": cpu_seconds() - start})
        with self.parts.open("a", encoding="utf-8") as parts:
            parts.write(line + "\n")

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.is_worker or not self.parts.is_file():
            return
        totals: dict[str, float] = {}
        for line in self.parts.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            totals[row["file"]] = totals.get(row["file"], 0.0) + row["cpu"]
        merged = {**read_costs(self.path), **totals}  # a subset's run updates only its files
        ordered = dict(sorted(merged.items(), key=lambda kv: (-kv[1], kv[0])))
        self.path.write_text(
            json.dumps({k: round(v, 1) for k, v in ordered.items()}, indent=1) + "\n"
        )
        self.parts.unlink()


def is_xdist_worker() -> bool:
    return "PYTEST_XDIST_WORKER" in os.environ

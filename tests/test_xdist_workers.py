"""The suite's worker count for `-n auto` (tests/xdist_workers.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import xdist_workers

TESTS = Path(__file__).resolve().parent


def test_auto_is_two_workers_per_usable_core() -> None:
    assert xdist_workers.auto_workers({}) == 2 * xdist_workers.usable_cores()


def test_the_environment_override_is_left_to_xdist() -> None:
    assert xdist_workers.auto_workers({"PYTEST_XDIST_AUTO_NUM_WORKERS": "3"}) is None


def test_usable_cores_follow_the_affinity_mask() -> None:
    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("no CPU affinity on this platform")
    code = (
        "import os, sys; sys.path.insert(0, sys.argv[1]); import xdist_workers; "
        "os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]}); "
        "print(xdist_workers.usable_cores(), xdist_workers.auto_workers({}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(TESTS)], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["1", "2"]


def test_the_suites_conftest_answers_n_auto(pytestconfig: pytest.Config) -> None:
    """What `-n auto` asks: the hook chain of this very session, the suite's conftest in it."""
    override = os.environ.get(xdist_workers.ENV_OVERRIDE)
    expected = int(override) if override else 2 * xdist_workers.usable_cores()
    assert pytestconfig.hook.pytest_xdist_auto_num_workers(config=pytestconfig) == expected

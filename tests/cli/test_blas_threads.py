"""The command line runs numpy's OpenBLAS on one thread (``polistemics.cli.BLAS_THREADS``): its
helper threads spin after every matrix product, on the core a run's other work needs."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import threadpoolctl
from command_probe import after_command

from polistemics.cli import BLAS_THREADS, single_threaded_blas

# Printed after the command: the most threads any BLAS library numpy loaded runs.
BLAS_THREADS_NOW = """
import numpy, threadpoolctl
print(max(p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"))
"""


def blas_threads_after(args: list[str], env: dict[str, str]) -> int:
    return int(after_command(args, BLAS_THREADS_NOW, env=env).stdout.split()[-1])


def without_blas_setting() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != BLAS_THREADS[0]}


# OpenBLAS runs at most one thread per core: on one core, no setting could be told apart.
several_cores = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: one BLAS thread")


@several_cores
def test_a_command_runs_blas_on_one_thread() -> None:
    # Without the command line numpy takes a thread per core here; through it, one.
    plain = subprocess.run(
        [sys.executable, "-c", BLAS_THREADS_NOW],
        env=without_blas_setting(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert int(plain.stdout) > 1, plain.stderr
    assert blas_threads_after(["score", "--help"], without_blas_setting()) == 1


@several_cores
def test_the_users_own_setting_is_kept() -> None:
    env = {**without_blas_setting(), BLAS_THREADS[0]: "2"}
    assert blas_threads_after(["score", "--help"], env) == 2


def test_the_default_is_set_only_where_absent(monkeypatch: pytest.MonkeyPatch) -> None:
    name, value = BLAS_THREADS
    monkeypatch.delenv(name, raising=False)
    single_threaded_blas()
    assert os.environ[name] == value
    monkeypatch.setenv(name, "3")
    single_threaded_blas()
    assert os.environ[name] == "3"


def test_the_suite_runs_blas_as_the_command_line_does() -> None:
    # tests/conftest.py applies the same default before numpy is imported, so a run made in a
    # test's own process (run_cli) computes as the command does.
    import numpy  # noqa: F401

    info = [p for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
    assert info and all(p["num_threads"] == 1 for p in info)

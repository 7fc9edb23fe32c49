"""The finish's side process: a function run by a forked child, its result or error back."""

from __future__ import annotations

import os

import pytest

from polistemics.run import side_process
from polistemics.run.side_process import can_fork_side_process, in_side_process

needs_fork = pytest.mark.skipif(
    not can_fork_side_process(), reason="the platform cannot fork or only one core is free"
)


@needs_fork
def test_the_function_runs_in_another_process_and_its_result_comes_back() -> None:
    state = {"rows": [1, 2, 3]}  # inherited by the child, never sent to it
    with in_side_process(lambda: (os.getpid(), sum(state["rows"]))) as side:
        pid, total = side.result()
    assert pid != os.getpid()
    assert total == 6


@needs_fork
def test_the_childs_error_is_raised_where_the_result_is_asked_for() -> None:
    def fail() -> None:
        raise ValueError("scores/cells.csv: unreadable")

    with in_side_process(fail) as side, pytest.raises(ValueError, match="unreadable"):
        side.result()


@needs_fork
def test_files_the_child_writes_are_there_once_the_result_is_back(tmp_path) -> None:
    target = tmp_path / "cells.csv"
    with in_side_process(lambda: target.write_text("a,b\n") and target) as side:
        assert side.result() == target
    assert target.read_text() == "a,b\n"


def test_switched_off_the_function_runs_here_when_its_result_is_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("POLISTEMICS_SIDE_PROCESS", "off")
    calls = []
    with in_side_process(lambda: calls.append(os.getpid()) or "done") as side:
        assert calls == []  # not run before it is asked for
        assert side.result() == "done"
    assert calls == [os.getpid()]


def test_one_core_runs_the_function_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(side_process.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    monkeypatch.setattr(side_process.os, "cpu_count", lambda: 1)
    assert not can_fork_side_process()
    with in_side_process(os.getpid) as side:
        assert side.result() == os.getpid()

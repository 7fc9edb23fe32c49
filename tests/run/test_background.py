from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from polistemics.run.background import BackgroundWork, ChildTraceback, can_fork, in_background

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")


@needs_fork
def test_the_child_returns_its_value_and_its_files_are_there(tmp_path: Path) -> None:
    def work() -> int:
        (tmp_path / "out.txt").write_text("written by the child")
        return os.getpid()

    with in_background(work, fork=True) as job:
        child_pid = job.result()
    assert child_pid != os.getpid()
    assert (tmp_path / "out.txt").read_text() == "written by the child"
    assert job.result() == child_pid  # asked again: the same value, no second run


@needs_fork
def test_an_error_in_the_child_is_raised_here_with_its_traceback() -> None:
    def failing_export() -> None:
        raise PermissionError(13, "no write access", "/run/judges.jsonl")

    with pytest.raises(PermissionError) as caught, in_background(failing_export, fork=True) as job:
        job.result()
    assert caught.value.filename == "/run/judges.jsonl"
    assert isinstance(caught.value.__cause__, ChildTraceback)
    assert "failing_export" in str(caught.value.__cause__)


class _NeedsTwoArguments(Exception):
    def __init__(self, what: str, where: str):
        super().__init__(f"{what} at {where}")


@needs_fork
def test_an_error_that_cannot_be_rebuilt_arrives_as_text() -> None:
    def work() -> None:
        raise _NeedsTwoArguments("bad row", "line 7")

    with pytest.raises(RuntimeError, match="_NeedsTwoArguments: bad row at line 7"):
        BackgroundWork(work, fork=True).result()


@needs_fork
def test_a_child_that_dies_without_a_word_is_an_error() -> None:
    def work() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    with pytest.raises(RuntimeError, match=f"code -{int(signal.SIGKILL)}"):
        BackgroundWork(work, fork=True).result()


@needs_fork
def test_when_the_block_fails_its_error_wins_and_the_child_is_waited_for(tmp_path: Path) -> None:
    done = tmp_path / "done"

    def slow_work() -> None:
        time.sleep(0.3)  # still running when the block fails
        done.write_text("finished")
        raise KeyboardInterrupt  # its own failure (Ctrl-C reaches it too): not the one to report

    with pytest.raises(KeyError), in_background(slow_work, fork=True):
        raise KeyError("the block's failure")
    assert done.exists()  # leaving the block waited for the child


def test_without_a_child_the_work_runs_when_its_result_is_needed() -> None:
    calls: list[str] = []

    def work() -> str:
        calls.append("ran")
        return "value"

    with in_background(work, fork=False) as job:
        assert calls == []
        assert job.result() == "value"
        assert job.result() == "value"
    assert calls == ["ran"]


def test_without_a_child_work_never_starts_after_the_block_fails() -> None:
    calls: list[str] = []
    with pytest.raises(KeyError), in_background(lambda: calls.append("ran"), fork=False):
        raise KeyError("failed before the work was needed")
    assert calls == []


def test_without_a_child_its_error_is_raised_as_is() -> None:
    def work() -> None:
        raise ValueError("inline")

    with pytest.raises(ValueError, match="inline"), in_background(work, fork=False) as job:
        job.result()


def test_no_fork_while_another_thread_runs() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not can_fork()
    finally:
        stop.set()
        thread.join()

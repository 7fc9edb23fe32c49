"""A piped ``polistemics run`` prints plain progress lines (no bars, no control codes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from study_helpers import write_study

from polistemics.testing import FakeOpenAIServer


def piped_run(config: Path, *, quiet: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "POLISTEMICS_QUIET"}  # CI sets it
    if quiet:
        env["POLISTEMICS_QUIET"] = "1"
    return subprocess.run(
        [sys.executable, "-c", "from polistemics.cli import main; main()", "run", str(config)],
        env={**env, "PYTHONPATH": os.pathsep.join(sys.path)},
        capture_output=True,
        text=True,
        check=False,
    )


def progress_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("progress ")]


@pytest.mark.timeout(300)
def test_a_piped_run_prints_plain_progress_lines(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, ablations="[]")
        done = piped_run(config, quiet=False)
    assert done.returncode == 0, done.stderr
    progress = progress_lines(done.stderr)
    stages = {line.split(":")[0].split()[1] for line in progress}
    assert {"standardise", "answer", "judge"} <= stages
    for stage in stages:  # each stage's last line says it ended
        last = [line for line in progress if line.startswith(f"progress {stage}:")][-1]
        assert "finished in" in last, last
    answers = [line for line in progress if line.startswith("progress answer:")]
    done_, total = answers[-1].split(": ")[1].split(" done")[0].split("/")
    assert done_ == total and int(total) > 0
    assert "\x1b[" not in done.stderr  # no terminal control codes in piped output


@pytest.mark.timeout(300)
def test_quiet_turns_the_plain_progress_lines_off(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, ablations="[]")
        done = piped_run(config, quiet=True)
    assert done.returncode == 0, done.stderr
    assert progress_lines(done.stderr) == []

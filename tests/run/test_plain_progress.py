"""A piped ``polistemics run`` prints plain progress lines (no bars, no control codes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from study_helpers import write_study

from polistemics.testing import FakeOpenAIServer


@pytest.mark.timeout(300)
def test_a_piped_run_prints_plain_progress_lines(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, ablations="[]")
        done = subprocess.run(
            [sys.executable, "-c", "from polistemics.cli import main; main()", "run", str(config)],
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
            capture_output=True,
            text=True,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    progress = [line for line in done.stderr.splitlines() if line.startswith("progress ")]
    stages = {line.split(":")[0].split()[1] for line in progress}
    assert {"standardise", "answer", "judge"} <= stages
    for stage in stages:  # each stage's last line says it ended
        last = [line for line in progress if line.startswith(f"progress {stage}:")][-1]
        assert "finished in" in last, last
    answers = [line for line in progress if line.startswith("progress answer:")]
    done_, total = answers[-1].split(": ")[1].split(" done")[0].split("/")
    assert done_ == total and int(total) > 0
    assert "\x1b[" not in done.stderr  # no terminal control codes in piped output

"""A run killed (SIGKILL) during the judge stage resumes to the same results, repeating no call."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from study_helpers import write_study

from polistemics.llm.store import RunStore
from polistemics.testing import FakeOpenAIServer


def start_run(config: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from polistemics.cli import main; main()",
            "run",
            str(config),
            "-q",
        ],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def judge_calls(store_path: Path) -> int:
    try:
        with sqlite3.connect(store_path, timeout=5) as db:
            return db.execute("SELECT COUNT(*) FROM calls WHERE stage = 'judge'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def results(run_dir: Path) -> tuple[list, list, list]:
    answers = [json.loads(line) for line in (run_dir / "answers.jsonl").read_text().splitlines()]
    judges = [json.loads(line) for line in (run_dir / "judges.jsonl").read_text().splitlines()]
    summary = json.loads((run_dir / "scores" / "summary.json").read_text())
    return (
        [(a["item_key"], a["text"]) for a in answers],
        [(j["item_key"], j["panel_position"], j["rubric"], j["says_yes"]) for j in judges],
        summary,
    )


def test_sigkill_in_the_judge_stage_then_resume(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        reference_dir = tmp_path / "reference"
        reference_dir.mkdir()
        reference = write_study(reference_dir, server.base_url)
        assert start_run(reference).wait(timeout=120) == 0

    with FakeOpenAIServer(latency=0.01) as server:
        killed_dir = tmp_path / "killed"
        killed_dir.mkdir()
        config = write_study(killed_dir, server.base_url)
        store_path = killed_dir / "run" / "store.sqlite"
        worker = start_run(config)
        deadline = time.monotonic() + 120
        while judge_calls(store_path) < 40:
            assert worker.poll() is None, worker.stderr.read().decode()
            assert time.monotonic() < deadline
            time.sleep(0.01)
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        with RunStore(store_path) as store:
            assert store.integrity_check() == "ok"
        with sqlite3.connect(store_path) as db:
            finished = {mh for (mh,) in db.execute("SELECT messages_hash FROM calls")}
            stages = {s for (s,) in db.execute("SELECT DISTINCT stage FROM calls")}
        assert "judge" in stages and not (killed_dir / "run" / "run.json").exists()

        resumed = start_run(config)
        assert resumed.wait(timeout=120) == 0, resumed.stderr.read().decode()
        per_prompt = server.stats().per_prompt

    assert finished <= per_prompt.keys()  # the server saw every call stored before the kill
    repeated = [mh for mh in finished if per_prompt[mh] > 1]
    assert repeated == [], f"{len(repeated)} finished calls were made again"
    assert results(killed_dir / "run") == results(reference_dir / "run")

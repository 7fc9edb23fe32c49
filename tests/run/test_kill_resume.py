"""A run killed (SIGKILL) in any stage resumes to the same results, repeating no finished call."""

from __future__ import annotations

import json
import signal
import sqlite3
import time
from pathlib import Path

import pytest
from study_helpers import start_run, write_study

from polistemics.llm.store import RunStore
from polistemics.testing import FakeOpenAIServer

# Stages that must not have started when the kill lands. Vague generation and its audit
# interleave, and judging starts as soon as the first answer exists, so those overlap.
LATER = {
    "standardise": ["vague", "vague_audit", "answer", "judge"],
    "vague": ["answer", "judge"],
    "vague_audit": ["answer", "judge"],
    "answer": [],
    "judge": [],
}


def stage_calls(store_path: Path, stage: str) -> int:
    try:
        with sqlite3.connect(store_path, timeout=5) as db:
            return db.execute("SELECT COUNT(*) FROM calls WHERE stage = ?", (stage,)).fetchone()[0]
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


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    folder = tmp_path_factory.mktemp("reference")
    with FakeOpenAIServer() as server:
        assert start_run(write_study(folder, server.base_url)).wait(timeout=120) == 0
    return results(folder / "run")


@pytest.mark.parametrize(
    ("stage", "after"),
    [
        ("standardise", 6),
        ("vague", 6),
        ("vague_audit", 4),
        ("answer", 25),
        ("judge", 40),
    ],
)
def test_sigkill_in_a_stage_then_resume(
    tmp_path: Path, reference: tuple, stage: str, after: int
) -> None:
    with FakeOpenAIServer(latency=0.05) as server:
        config = write_study(tmp_path, server.base_url)
        store_path = tmp_path / "run" / "store.sqlite"
        worker = start_run(config)
        deadline = time.monotonic() + 120
        while stage_calls(store_path, stage) < after:
            assert worker.poll() is None, worker.stderr.read()
            assert time.monotonic() < deadline
            time.sleep(0.005)
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        with RunStore(store_path) as store:
            assert store.integrity_check() == "ok"
        with sqlite3.connect(store_path) as db:
            finished = {mh for (mh,) in db.execute("SELECT messages_hash FROM calls")}
        assert all(stage_calls(store_path, later) == 0 for later in LATER[stage]), "killed too late"
        assert not (tmp_path / "run" / "run.json").exists()

        resumed = start_run(config)
        assert resumed.wait(timeout=120) == 0, resumed.stderr.read()
        per_prompt = server.stats().per_prompt

    assert finished <= per_prompt.keys()  # the server saw every call stored before the kill
    repeated = [mh for mh in finished if per_prompt[mh] > 1]
    assert repeated == [], f"{len(repeated)} finished calls were made again"
    assert results(tmp_path / "run") == reference

"""A run killed (SIGKILL) in any stage resumes to the same results, repeating no finished call
and, counted at the test server, no more calls than were in flight at the kill.

The study includes the mechanism stages (issue 16: swapped-order Contradictory items, the
closed-book prior probe and stance coding), so a kill lands in those too."""

from __future__ import annotations

import json
import signal
import sqlite3
import time
from pathlib import Path

import pytest
from mechanism_responder import MechanismResponder
from study_helpers import run_cli, start_run, write_study

from polistemics.llm.store import RunStore
from polistemics.testing import FakeOpenAIServer

# Stages that must not have started when the kill lands. Vague generation and its audit
# interleave, and judging starts as soon as the first answer exists, so those overlap.
# The probe starts after judging, coding after the probe.
MECHANISMS = ["prior_probe", "stance_code"]
LATER = {
    "standardise": ["vague", "vague_audit", "answer", "judge", *MECHANISMS],
    "vague": ["answer", "judge", *MECHANISMS],
    "vague_audit": ["answer", "judge", *MECHANISMS],
    "answer": MECHANISMS,
    "judge": MECHANISMS,
    "prior_probe": ["stance_code"],
    "stance_code": [],
}
IN_FLIGHT = 8  # the study's models share one server, at max_concurrency 8 (study_helpers)
STUDY = {
    "stance_coder": '["judge-b", "judge-c"]',
    "prior_probe": "true",
    "contradictory_swapped": '"half"',
}


def responder() -> MechanismResponder:
    # The probe declines for one party; the others "support" from outside knowledge.
    return MechanismResponder(
        probe_stance=lambda party: None if party == "Harbour Party" else "supports"
    )


def stage_calls(store_path: Path, stage: str) -> int:
    try:
        with sqlite3.connect(store_path, timeout=5) as db:
            return db.execute("SELECT COUNT(*) FROM calls WHERE stage = ?", (stage,)).fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def results(run_dir: Path) -> tuple[list, list, list, list, list]:
    answers = read_lines(run_dir / "answers.jsonl")
    judges = read_lines(run_dir / "judges.jsonl")
    summary = json.loads((run_dir / "scores" / "summary.json").read_text())
    probes = read_lines(run_dir / "prior_probe.jsonl")
    codes = read_lines(run_dir / "stance_codes.jsonl")
    return (
        [(a["item_key"], a["text"]) for a in answers],
        [(j["item_key"], j["panel_position"], j["rubric"], j["says_yes"]) for j in judges],
        summary,
        [(p["party_id"], p["statement_id"], p["text"]) for p in probes],
        [(c["kind"], c["subject_key"], c["panel_position"], c["stance"]) for c in codes],
    )


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[tuple, int]:
    """The results of a run never interrupted, and how many requests it sent."""
    folder = tmp_path_factory.mktemp("reference")
    with FakeOpenAIServer(responder=responder()) as server:
        done = run_cli("run", str(write_study(folder, server.base_url, **STUDY)), "-q")
        assert done.returncode == 0, done.stderr
        requests = server.stats().requests
    reference = results(folder / "run")
    assert any("|swapped" in key for key, _ in reference[0])
    assert reference[3] and all(stance is not None for *_, stance in reference[4])
    return reference, requests


@pytest.mark.parametrize(
    ("stage", "after"),
    [
        ("standardise", 6),
        ("vague", 6),
        ("vague_audit", 4),
        ("answer", 25),
        ("judge", 40),
        ("prior_probe", 10),
        ("stance_code", 40),
    ],
)
def test_sigkill_in_a_stage_then_resume(
    tmp_path: Path, reference: tuple[tuple, int], stage: str, after: int
) -> None:
    reference_results, reference_requests = reference
    with FakeOpenAIServer(latency=0.05, responder=responder()) as server:
        config = write_study(tmp_path, server.base_url, **STUDY)
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

        # The latency only lets the kill land inside the stage; the resume is not killed, so
        # it runs without it (the study's 1,120 calls at 50 ms, 8 at a time, wait 7 s or more),
        # and in this process (a child process would pay the imports again: study_helpers).
        server.latency = 0.0
        resumed = run_cli("run", str(config), "-q")
        assert resumed.returncode == 0, resumed.stderr
        stats = server.stats()

    assert finished <= stats.per_prompt.keys()  # the server saw every call stored before the kill
    repeated = [mh for mh in finished if stats.per_prompt[mh] > 1]
    assert repeated == [], f"{len(repeated)} finished calls were made again"
    # Both runs together sent what one uninterrupted run sends, plus at most the calls lost in
    # flight (a call keeps its slot until it is committed).
    assert reference_requests <= stats.requests <= reference_requests + IN_FLIGHT
    assert results(tmp_path / "run") == reference_results

"""Repeat judging end to end on the test server: the scripted flip rate comes back within the CI,
the dry run counts the calls the run makes, scores do not change, and a killed run resumes its
repeats without repeating finished ones."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import time
from pathlib import Path

import pytest
from study_helpers import run_cli, start_run, write_study

from polistemics.llm.store import RunStore
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study, load_elections
from polistemics.run.plan import plan_study
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.responders import RepeatFlipResponder

SCRIPTED_RATE = 0.12
# No ablations: half the run time, and no two items share a judge prompt.
STUDY = {"judge_repeats": '{ items = 0.5, judges = "all" }', "ablations": "[]"}


def run_study(config_path: Path):
    config = load_config(config_path)
    study = Study(config, config.run_dir(), log=lambda m: None)
    result = asyncio.run(study.execute(quiet=True))
    finish_run(study, result)
    manifest = json.loads((config.run_dir() / "run.json").read_text(encoding="utf-8"))
    return study, result, manifest


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    plain_dir, repeat_dir = tmp_path_factory.mktemp("plain"), tmp_path_factory.mktemp("repeats")
    with FakeOpenAIServer() as server:
        plain = run_study(write_study(plain_dir, server.base_url, ablations="[]"))
    responder = RepeatFlipResponder(SCRIPTED_RATE, seed=5)
    with FakeOpenAIServer(responder=responder) as server:
        config = write_study(repeat_dir, server.base_url, **STUDY)
        study = Study(load_config(config), repeat_dir / "run", log=lambda m: None)
        planned, _ = plan_study(study.config, load_elections(study.config), study.endpoints, None)
        repeated = run_study(config)
    return plain, repeated, planned, responder, repeat_dir


def test_scripted_flip_rate_is_recovered_within_the_ci(runs) -> None:
    _, (_, result, manifest), _, responder, _ = runs
    summary = manifest["judge_repeats"]
    overall = summary["overall"]
    assert overall["n"] > 500 and overall["n_items"] == summary["items_sampled"]
    assert overall["ci_method"].startswith("cluster bootstrap")
    assert overall["ci_low"] <= SCRIPTED_RATE <= overall["ci_high"], overall
    # Every repeat verdict the server flipped is counted, and nothing else.
    assert overall["flips"] == responder.flips and overall["n"] == responder.repeat_verdicts
    # One distinct repeat judge: the panel's three seats are one endpoint.
    assert summary["repeat_judges"] == ["judge-a"]
    assert [row["judge"] for row in summary["by_judge"]] == ["judge-a"]
    assert {row["rubric"] for row in summary["by_rubric"]} == {
        "faithfulness",
        "impartiality",
        "epistemic_calibration",
    }
    for row in summary["by_sub_question"]:
        assert row["ci_low"] <= row["rate"] <= row["ci_high"]
    assert sum(row["n"] for row in summary["by_sub_question"]) == overall["n"]


def panel_verdicts(run_dir: Path) -> list[tuple]:
    """judges.jsonl without its call keys (they name the server's port)."""
    records = [json.loads(line) for line in (run_dir / "judges.jsonl").read_text().splitlines()]
    return [(r["item_key"], r["panel_position"], r["rubric"], r["says_yes"]) for r in records]


def test_repeats_never_change_the_scores(runs, tmp_path: Path) -> None:
    (_, plain, plain_manifest), (_, result, manifest), *_, repeat_dir = runs
    plain_scores = (plain.run_dir / "scores" / "summary.json").read_text()
    assert (result.run_dir / "scores" / "summary.json").read_text() == plain_scores
    assert panel_verdicts(result.run_dir) == panel_verdicts(plain.run_dir)
    lines = (result.run_dir / "judge_repeats.jsonl").read_text().splitlines()
    assert len(lines) == len(result.repeat_verdicts) > 0
    assert {json.loads(line)["repeat"] for line in lines} == {1}
    assert plain_manifest["judge_repeats"] is None
    assert not (plain.run_dir / "judge_repeats.jsonl").exists()


def test_dry_run_counts_the_repeat_calls_the_run_makes(runs) -> None:
    _, (_, result, manifest), planned, *_ = runs
    row = next(row for row in planned if row.stage == "judge_repeat")
    stored = next(c for c in manifest["calls"] if c["stage"] == "judge_repeat")
    assert row.calls == stored["calls"] == len(result.repeat_verdicts)
    assert manifest["judge_repeats"]["planned_calls"] == row.calls


def repeat_calls_stored(store_path: Path) -> int:
    try:
        with sqlite3.connect(store_path, timeout=5) as db:
            query = "SELECT COUNT(*) FROM calls WHERE stage = 'judge_repeat'"
            return db.execute(query).fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_a_killed_run_resumes_its_repeats_without_repeating_finished_ones(
    runs, tmp_path: Path
) -> None:
    _, (_, result, _), *_ = runs
    expected = len(result.repeat_verdicts)
    with FakeOpenAIServer(latency=0.05) as server:
        config = write_study(tmp_path, server.base_url, **STUDY)
        store_path = tmp_path / "run" / "store.sqlite"
        worker = start_run(config)
        deadline = time.monotonic() + 120
        while repeat_calls_stored(store_path) < 20:
            assert worker.poll() is None, worker.stderr.read()
            assert time.monotonic() < deadline
            time.sleep(0.005)
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        with RunStore(store_path) as store:
            assert store.integrity_check() == "ok"
            total_before = store.count_calls()
        finished = repeat_calls_stored(store_path)
        assert 20 <= finished < expected, "killed too late"
        server.latency = 0.0  # it let the kill land mid-stage; the resume is not killed
        resumed = run_cli("run", str(config), "-q")  # in this process (study_helpers.run_cli)
        assert resumed.returncode == 0, resumed.stderr
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert repeat_calls_stored(store_path) == expected
    total_after = sum(c["calls"] for c in manifest["calls"])
    # The resumed run made exactly the calls the store lacked: no finished one again.
    assert manifest["calls_made_this_run"] == total_after - total_before

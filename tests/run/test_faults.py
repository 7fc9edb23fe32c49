"""Provider faults during a whole run: completed, failures recorded and counted, later repaired."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from study_helpers import quicker_retry_policy, run_cli, write_study

from polistemics.llm import session
from polistemics.testing import FakeOpenAIServer, Fault, Rule


def cli(*args: str) -> subprocess.CompletedProcess:
    return run_cli(*args)


def outputs(run_dir: Path) -> tuple:
    answers = [json.loads(x) for x in (run_dir / "answers.jsonl").read_text().splitlines()]
    judges = [json.loads(x) for x in (run_dir / "judges.jsonl").read_text().splitlines()]
    return (
        sorted((a["item_key"], a["status"], a["text"]) for a in answers),
        sorted(
            (j["item_key"], j["panel_position"], j["rubric"], str(j["says_yes"])) for j in judges
        ),
        json.loads((run_dir / "scores" / "summary.json").read_text()),
    )


def quicker_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run here sat idle some 50 s of its 71 in the default backoff."""
    monkeypatch.setattr(session, "RetryPolicy", quicker_retry_policy())


def test_faulty_provider_run_completes_counts_failures_and_retry_errors_repairs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quicker_retries(monkeypatch)  # the runs are in this process (run_cli)
    reference_dir = tmp_path / "reference"
    reference_dir.mkdir()
    with FakeOpenAIServer() as server:
        assert cli("run", str(write_study(reference_dir, server.base_url))).returncode == 0
    reference = outputs(reference_dir / "run")

    faulty = [
        Rule("Party B", always=Fault("status", status=500)),  # permanent: anonymised party B
        Rule("Party C", faults=[Fault("status", status=429, retry_after=0.05)] * 2),  # transient
        Rule("Riverside", faults=[Fault("drop_connection"), Fault("timeout", delay=3.0)]),
    ]
    with FakeOpenAIServer(faulty) as server:
        port = server.port
        config = write_study(tmp_path, server.base_url, **{"concurrency": "4"})
        first = cli("run", str(config))
    assert first.returncode == 0, first.stderr
    run_dir = tmp_path / "run"
    manifest = json.loads((run_dir / "run.json").read_text())
    answers = [json.loads(x) for x in (run_dir / "answers.jsonl").read_text().splitlines()]
    failed = [a for a in answers if a["status"] != "ok"]
    assert failed and all("HTTP 500" in a["error"] for a in failed)
    assert manifest["judging"]["answers_not_judged"] == {"error": len(failed)}
    cells = pd.read_csv(run_dir / "scores" / "cells.csv")
    failed_keys = {a["item_key"] for a in failed}
    scored_keys = set(cells["observation_id"] + "|" + cells["environment"] + "|" + cells["variant"])
    assert not failed_keys & scored_keys  # never scored as a pass or a fail
    errors = cli("cache", "errors", str(run_dir))
    assert f"{manifest['totals']['errors']} failed call(s)" in errors.stdout

    with FakeOpenAIServer(port=port) as server:  # the provider has recovered
        repaired = cli("run", str(config), "--retry-errors")
        assert repaired.returncode == 0, repaired.stderr
        assert (
            0 < server.stats().requests < manifest["totals"]["calls"]
        )  # only what failed, and what follows
    assert outputs(run_dir) == reference

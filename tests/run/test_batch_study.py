"""A study whose models run through the test server's batch API: the same scores as the study
run online, mixed with online endpoints, and a SIGKILL while batches are open, then a resume that
sends nothing again (counted at the server)."""

from __future__ import annotations

import json
import signal
import sqlite3
import time
from pathlib import Path

import pytest
from study_helpers import run_cli, start_run, write_study

from polistemics.testing import FakeOpenAIServer

MODELS = [("target", 0.0), ("judge-a", 0.0), ("judge-b", 0.0), ("judge-c", 0.0), ("writer", 0.3)]
BATCH_FIELDS = 'execution = "batch"\nbatch_flush_seconds = 0.05\nbatch_poll_seconds = 0.02\n'


def write_batch_study(
    tmp_path: Path, base_url: str, batch: set[str], batch_api: str = "openai"
) -> Path:
    """``write_study``'s study with the models in ``batch`` running as batch endpoints."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    config = write_study(tmp_path, base_url)
    (tmp_path / "models.toml").write_text(
        "\n".join(
            f'[models.{name}]\nbase_url = "{base_url}"\nmodel = "fake-model"\n'
            f"temperature = {temp}\nmax_concurrency = 8\n"
            + (BATCH_FIELDS + f'batch_api = "{batch_api}"\n' if name in batch else "")
            for name, temp in MODELS
        )
    )
    return config


def outputs(run_dir: Path) -> tuple:
    lines = lambda name: (run_dir / name).read_text().splitlines()  # noqa: E731
    answers = [(a["item_key"], a["text"]) for a in map(json.loads, lines("answers.jsonl"))]
    judges = [
        (j["item_key"], j["panel_position"], j["rubric"], j["says_yes"])
        for j in map(json.loads, lines("judges.jsonl"))
    ]
    return answers, judges, json.loads((run_dir / "scores" / "summary.json").read_text())


def manifest(run_dir: Path) -> dict:
    return json.loads((run_dir / "run.json").read_text())


def dry_run_plan(config: Path) -> list:
    out = run_cli("run", str(config), "--dry-run", "--json")
    assert out.returncode == 0, out.stderr
    plan = json.loads(out.stdout)
    return [(row["stage"], row["model"], row["calls"], row["new"]) for row in plan["stages"]]


@pytest.fixture(scope="module")
def online(tmp_path_factory: pytest.TempPathFactory) -> tuple[tuple, int, Path]:
    """The study run online: its outputs, requests, and config."""
    folder = tmp_path_factory.mktemp("online")
    with FakeOpenAIServer() as server:
        config = write_batch_study(folder, server.base_url, set())
        done = run_cli("run", str(config), "-q")
        assert done.returncode == 0, done.stderr
        requests = server.stats().requests
    record = manifest(folder / "run")
    assert "execution" not in record and "batches" not in record  # as before batches existed
    assert all("execution" not in model for model in record["models"].values())
    return outputs(folder / "run"), requests, config


@pytest.mark.parametrize(
    ("batch", "batch_api"),
    [
        pytest.param({name for name, _ in MODELS}, "openai", id="every-model"),
        pytest.param({"judge-a", "judge-b", "judge-c", "writer"}, "openai", id="mixed"),
        pytest.param({"target", "judge-a", "judge-b", "judge-c"}, "anthropic", id="anthropic"),
    ],
)
def test_a_batch_study_scores_as_the_online_study(
    tmp_path: Path, online: tuple, batch: set[str], batch_api: str
) -> None:
    reference, online_requests, _ = online
    with FakeOpenAIServer() as server:
        config = write_batch_study(tmp_path, server.base_url, batch, batch_api)
        done = run_cli("run", str(config), "-q")
        assert done.returncode == 0, done.stderr
        requests = server.stats().requests
        batch_stats = server.batches.stats()
    run_dir = tmp_path / "run"
    assert outputs(run_dir) == reference
    assert requests == online_requests  # the same calls, through another door
    assert batch_stats.requests > 0 and set(batch_stats.requests_per_custom_id.values()) == {1}
    record = manifest(run_dir)
    modes = record["execution"]
    assert modes["batch"]["calls"] == batch_stats.requests
    assert ("online" in modes) == (batch != {name for name, _ in MODELS})
    assert sum(m["calls"] for m in modes.values()) == record["totals"]["calls"]
    assert record["batches"]["resubmitted"] == 0 and record["batches"]["open"] == 0
    assert record["batches"]["created"] == sum(batch_stats.batches.values())
    assert {name for name, m in record["models"].items() if m.get("execution") == "batch"} == batch


def test_the_dry_run_counts_are_those_of_the_online_study(tmp_path: Path) -> None:
    base_url = "http://127.0.0.1:9/v1"  # never called
    online = write_batch_study(tmp_path / "online", base_url, set())
    batch = write_batch_study(tmp_path / "batch", base_url, {name for name, _ in MODELS})
    plan = dry_run_plan(batch)
    assert plan == dry_run_plan(online)
    assert sum(calls for _, _, calls, _ in plan) > 0


def open_batches(store: Path, endpoint_prefix: str) -> int:
    try:
        with sqlite3.connect(store, timeout=5) as db:
            return db.execute(
                "SELECT COUNT(*) FROM batches WHERE closed_at IS NULL AND endpoint LIKE ?",
                (endpoint_prefix + "%",),
            ).fetchone()[0]
    except sqlite3.OperationalError:  # no store or no batch table yet
        return 0


@pytest.mark.parametrize("endpoint", ["writer", "judge"])
def test_sigkill_while_batches_are_open_then_resume(
    tmp_path: Path, online: tuple, endpoint: str
) -> None:
    reference, _, _ = online
    with FakeOpenAIServer(batch_latency=1.0) as server:
        config = write_batch_study(tmp_path, server.base_url, {name for name, _ in MODELS})
        store = tmp_path / "run" / "store.sqlite"
        worker = start_run(config)
        deadline = time.monotonic() + 120
        while open_batches(store, endpoint) == 0:
            assert worker.poll() is None, worker.stderr.read()
            assert time.monotonic() < deadline
            time.sleep(0.01)
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        assert not (tmp_path / "run" / "run.json").exists()
        sent_before = server.batches.stats().requests

        resumed = run_cli("run", str(config), "-q")  # not killed: in this process
        assert resumed.returncode == 0, resumed.stderr
        stats = server.batches.stats()

    again = {key: n for key, n in stats.requests_per_custom_id.items() if n > 1}
    assert again == {}, f"{len(again)} requests were sent twice"
    assert stats.requests > sent_before > 0
    assert outputs(tmp_path / "run") == reference
    record = manifest(tmp_path / "run")
    assert record["batches"]["resubmitted"] == 0 and record["batches"]["open"] == 0

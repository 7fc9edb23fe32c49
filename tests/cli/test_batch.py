"""``polistemics batch status RUN``: the run's open batches from its store, what a provider
named them shown, never run."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.llm.batch.ledger import Ledger
from polistemics.llm.store import RunStore
from polistemics.runlog import STORE_FILE


def make_run(tmp_path: Path) -> Path:
    with RunStore(tmp_path / STORE_FILE), Ledger(tmp_path / STORE_FILE) as ledger:
        for batch_id, keys in (("batch_open", ["k1", "k2"]), ("batch_done", ["k3"])):
            ledger.record(
                batch_id,
                endpoint="judge-a",
                base_url="http://x/v1",
                model="fake-model",
                input_file_id="file-1",
                status="in_progress",
                keys=keys,
            )
        ledger.record(
            "batch_\x1b]0;title\x07",
            endpoint="judge-a",
            base_url="http://x/v1",
            model="fake-model",
            input_file_id="file-2",
            status="validating",
            keys=["k4"],
        )
        ledger.set_status("batch_done", "completed")
        ledger.close_batch("batch_done")
    return tmp_path


def test_status_lists_the_open_batches(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    result = CliRunner().invoke(app, ["batch", "status", str(run)])
    assert result.exit_code == 0, result.output
    assert "batch_open" in result.stdout and "batch_done" not in result.stdout
    assert "\x1b" not in result.stdout and "\\x1b" in result.stdout
    shown = CliRunner().invoke(app, ["batch", "status", str(run), "--all"]).stdout
    assert "batch_done" in shown


def test_status_as_json(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["batch", "status", str(make_run(tmp_path)), "--json"])
    rows = {row["batch_id"]: row for row in json.loads(result.stdout)}
    assert rows["batch_open"] == {
        **rows["batch_open"],
        "status": "in_progress",
        "requests": 2,
        "without_result": 2,
        "open": True,
    }
    assert "batch_done" not in rows


def test_status_without_a_store_is_a_user_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["batch", "status", str(tmp_path)])
    assert result.exit_code == 2 and "no run store" in result.stderr

"""The batch ledger in the run store: an older store opens with it, batches are recorded with
their keys, closed when all their results are stored, and reported for run.json."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

from polistemics.llm.batch.ledger import Ledger, ledger_report
from polistemics.llm.store import RunStore


def store_call(store: RunStore, key: str, cost: float) -> None:
    with sqlite3.connect(store.path) as db:
        db.execute(
            "INSERT INTO calls (key, endpoint, model, stage, messages_hash, params, sample_index, "
            "status, cost, created_at) VALUES (?, 'e', 'm', 's', 'h', '{}', 0, 'ok', ?, 0)",
            (key, cost),
        )


def record(ledger: Ledger, batch_id: str, keys: list[str]) -> None:
    ledger.record(
        batch_id,
        endpoint="judge",
        base_url="http://x/v1",
        model="m",
        input_file_id="file-1",
        status="in_progress",
        keys=keys,
    )


def test_an_older_store_opens_and_gains_the_tables(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    with RunStore(path) as store:
        store_call(store, "k1", 0.5)
    assert ledger_report(path) == {}  # no batch table yet: nothing to report, nothing made
    with Ledger(path) as ledger:
        assert ledger.batches() == [] and ledger.open_requests() == {}
    with RunStore(path) as store:
        assert store.get_call("k1").cost == 0.5
    assert ledger_report(path) == {}  # tables, but no batch


def test_batches_are_open_until_their_results_are_stored(tmp_path: Path) -> None:
    with RunStore(tmp_path / "store.sqlite") as store, Ledger(store.path) as ledger:
        record(ledger, "b1", ["k1", "k2"])
        record(ledger, "b2", ["k2", "k3"])  # k2 sent again (resubmitted)
        assert ledger.open_requests() == {"k1": "b1", "k2": "b2", "k3": "b2"}
        store_call(store, "k1", 0.25)
        store_call(store, "k2", 0.25)
        assert ledger.close_stored() == 1  # b1: all stored; b2 waits for k3
        assert [row.batch_id for row in ledger.batches(open_only=True)] == ["b2"]
        assert ledger.unstored_keys_of("b2") == {"k3"}
        ledger.record_read("b1", Counter(unknown=2, malformed=1), missing=1)
        store_call(store, "online", 1.0)
        report = ledger.report()
    assert report["execution"] == {
        "batch": {"calls": 2, "cost_usd": 0.5, "input_tokens": 0, "output_tokens": 0},
        "online": {"calls": 1, "cost_usd": 1.0, "input_tokens": 0, "output_tokens": 0},
    }
    assert report["batches"] == {
        "created": 2,
        "requests_sent": 4,
        "resubmitted": 1,
        "refused_lines": {"unknown": 2, "duplicate": 0, "malformed": 1},
        "missing_results": 1,
        "open": 1,
    }
    assert ledger_report(tmp_path / "store.sqlite") == report

"""The run store: finished calls round-trip, with their prompt, and a success replaces a failure.

Calls are written the way the client writes them, through ``CallWriter``.
"""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
import zlib
from pathlib import Path

import pytest

from polistemics.llm.call_writer import CallWriter
from polistemics.llm.keys import canonical_json, messages_hash
from polistemics.llm.store import LOOKUP_CHUNK, FinishedCall, RunStore, call_row
from polistemics.llm.types import CallResult

MESSAGES = [{"role": "user", "content": "Welche Position hat «Partei A»? ü"}]


def result(status: str = "ok", **fields) -> CallResult:
    base = {"key": "k1", "endpoint": "judge", "model": "org/m", "status": status}
    return CallResult(**(base | fields))


def write(path: Path, call_result: CallResult, messages_json: str | None = None) -> None:
    writer = CallWriter(path)
    asyncio.run(writer.put(FinishedCall(call_result, "judge", "h", "{}", 0, messages_json)))
    writer.close()


def test_call_and_its_prompt_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    with RunStore(path) as store:
        written = result(text="Ja", input_tokens=12, output_tokens=1, cost=0.5, attempts=2)
        write(path, written, canonical_json(MESSAGES))
        stored = store.get_call("k1")
        assert stored == result(
            text="Ja", input_tokens=12, output_tokens=1, cost=0.5, attempts=2, cached=True
        )
        assert store.call_messages("k1") == MESSAGES
        assert store.call_keys() == {"k1"}
        assert store.get_call("missing") is None and store.call_messages("missing") is None


def test_stored_results_are_read_together_in_chunks(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    with RunStore(path) as store:
        write(path, result(key="k1", text="Ja", cost=0.5, attempts=2))
        write(path, result(key="k2", status="error", error="empty content"))
        found = store.get_calls(["k2", "missing", "k1"])
        assert found == {"k1": store.get_call("k1"), "k2": store.get_call("k2")}
        assert found["k2"] == result(key="k2", status="error", error="empty content", cached=True)
        # More keys than one query asks for: each chunk is read.
        many = [f"x{i}" for i in range(2 * LOOKUP_CHUNK)] + ["k2"]
        assert set(store.get_calls(many)) == {"k2"}
        assert store.get_calls([]) == {}


def test_success_replaces_a_recorded_failure(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    with RunStore(path) as store:
        write(path, result("error", error="HTTP 503"))
        assert store.error_keys() == ["k1"]
        write(path, result(text="fine"))
        assert store.error_keys() == [] and store.count_calls() == 1
        assert store.get_call("k1").text == "fine"


def test_the_writer_makes_the_messages_hash_the_client_leaves_to_it(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    with RunStore(path):
        writer = CallWriter(path)
        call = FinishedCall(result(), "judge", None, "{}", 0, canonical_json(MESSAGES))
        asyncio.run(writer.put(call))
        writer.close()
    with sqlite3.connect(path) as db:
        (stored,) = db.execute("SELECT messages_hash FROM calls").fetchone()
    assert stored == messages_hash(MESSAGES)
    with pytest.raises(ValueError, match="neither its messages nor their hash"):
        call_row(FinishedCall(result(), "judge", None, "{}", 0, None))


def test_calls_sharing_one_prompt_text_store_each_its_hash_and_compressed_prompt() -> None:
    """A panel's judges hand the writer one prompt text: hashed and compressed once, each row
    holds what the text holds, and a new text (equal or not) is read for itself."""
    shared = canonical_json(MESSAGES)
    other = canonical_json([{"role": "user", "content": "another prompt"}])
    for text in (shared, shared, other, shared, "".join([shared[:5], shared[5:]])):
        row = call_row(FinishedCall(result(), "judge", None, "{}", 0, text))
        assert row[4] == hashlib.sha256(text.encode("utf-8")).hexdigest()
        assert zlib.decompress(row[17]).decode("utf-8") == text
    given = call_row(FinishedCall(result(), "judge", "given-hash", "{}", 0, shared))
    assert given[4] == "given-hash" and zlib.decompress(given[17]).decode() == shared
    empty = call_row(FinishedCall(result(), "judge", None, "{}", 0, ""))
    assert empty[4] == hashlib.sha256(b"").hexdigest() and empty[17] is None

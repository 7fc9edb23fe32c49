"""The run store: finished calls round-trip, with their prompt, and a success replaces a failure."""

from __future__ import annotations

from pathlib import Path

from polistemics.llm.keys import canonical_json
from polistemics.llm.store import RunStore
from polistemics.llm.types import CallResult

MESSAGES = [{"role": "user", "content": "Welche Position hat «Partei A»? ü"}]


def result(status: str = "ok", **fields) -> CallResult:
    base = {"key": "k1", "endpoint": "judge", "model": "org/m", "status": status}
    return CallResult(**(base | fields))


def test_call_and_its_prompt_round_trip(tmp_path: Path) -> None:
    with RunStore(tmp_path / "store.sqlite") as store:
        store.put_call(
            result(text="Ja", input_tokens=12, output_tokens=1, cost=0.5, attempts=2),
            stage="judge",
            messages_hash="h",
            params_json="{}",
            sample_index=0,
            messages_json=canonical_json(MESSAGES),
        )
        stored = store.get_call("k1")
        assert stored == result(
            text="Ja", input_tokens=12, output_tokens=1, cost=0.5, attempts=2, cached=True
        )
        assert store.call_messages("k1") == MESSAGES
        assert store.get_call("missing") is None and store.call_messages("missing") is None


def test_success_replaces_a_recorded_failure(tmp_path: Path) -> None:
    with RunStore(tmp_path / "store.sqlite") as store:
        common = {"stage": "answer", "messages_hash": "h", "params_json": "{}", "sample_index": 0}
        store.put_call(result("error", error="HTTP 503"), **common)
        assert store.error_keys() == ["k1"]
        store.put_call(result(text="fine"), **common)
        assert store.error_keys() == [] and store.count_calls() == 1
        assert store.get_call("k1").text == "fine"

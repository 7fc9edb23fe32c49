"""``polistemics cache errors``: what a provider wrote in an error is shown, never run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.llm.call_writer import CallWriter
from polistemics.llm.store import FinishedCall, RunStore
from polistemics.llm.types import CallResult
from polistemics.runlog import STORE_FILE

OSC_TITLE = "\x1b]0;pwned window title\x07"
OSC_LINK = "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\"


def test_escape_sequences_in_an_error_are_printed_as_escapes(tmp_path: Path) -> None:
    error = f"HTTP 500: {OSC_TITLE}{OSC_LINK} \x9b31m bell\x07 nul\x00"
    failed = CallResult(key="k" * 64, endpoint="judge", model="m", status="error", error=error)
    with RunStore(tmp_path / STORE_FILE):  # makes the tables
        writer = CallWriter(tmp_path / STORE_FILE)
        asyncio.run(writer.put(FinishedCall(failed, "judge", "h", "{}", 0, None)))
        writer.close()
    result = CliRunner().invoke(app, ["cache", "errors", str(tmp_path)])
    assert result.exit_code == 0, result.output
    shown = result.stdout
    assert not any(ch in shown for ch in "\x1b\x07\x00\x9b")
    assert "HTTP 500: \\x1b]0;pwned window title\\x07" in shown
    assert "1 failed call(s)" in shown


def test_stats_show_the_cached_input_tokens(tmp_path: Path) -> None:
    calls = [
        CallResult(key=f"{i}" * 64, endpoint="judge", model="m", status="ok", text="Yes",
                   input_tokens=1000 + i, cached_input_tokens=300 * i)
        for i in (1, 2)
    ]  # fmt: skip
    with RunStore(tmp_path / STORE_FILE) as store:
        store.add_calls([FinishedCall(c, "judge", "h", "{}", 0, None) for c in calls])
    table = CliRunner().invoke(app, ["cache", "stats", str(tmp_path)], env={"COLUMNS": "200"})
    assert table.exit_code == 0 and "cached in" in table.stdout and " 900 " in table.stdout
    as_json = CliRunner().invoke(app, ["cache", "stats", str(tmp_path), "--json"])
    (row,) = json.loads(as_json.stdout)
    assert (row["input_tokens"], row["cached_input_tokens"]) == (2003, 900)
    assert row["uncached_input_tokens"] == 2003 - 900

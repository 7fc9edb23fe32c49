"""``polistemics cache errors``: what a provider wrote in an error is shown, never run."""

from __future__ import annotations

import asyncio
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

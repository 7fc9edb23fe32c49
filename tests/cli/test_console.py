"""Piped output is never cut: tables on stdout and ``--help`` (issue 28)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from rich.table import Table

from polistemics.cli.console import stdout_console

HEADERS = [f"Contradictory environment {n}" for n in range(8)]  # ~250 columns in all


def piped(*args: str, **env: str) -> subprocess.CompletedProcess:
    """``polistemics ARGS`` with stdout piped, in an environment without a chosen width."""
    clean = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "TERMINAL_WIDTH")}
    return subprocess.run(
        [sys.executable, "-m", "polistemics", *args],
        env={**clean, "PYTHONPATH": os.pathsep.join(sys.path), **env},
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("columns", [None, "80"])
def test_a_piped_table_keeps_every_header_and_cell_whole(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, columns: str | None
) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)  # a file has no width, whatever this says
    table = Table()
    for header in HEADERS:
        table.add_column(header)
    table.add_row(*(f"claude_sonnet_4_6 value {n}" for n in range(8)))
    stdout_console().print(table)
    out = capsys.readouterr().out
    assert "…" not in out
    assert all(header in out for header in HEADERS)
    assert "claude_sonnet_4_6 value 7" in out


def test_piped_help_names_every_option_and_value_in_full() -> None:
    done = piped("environments", "build", "--help")
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    assert "--counterbalance-contradictory-order" in done.stdout
    assert "ie_consistency_contradiction" in done.stdout


def test_piped_help_keeps_a_width_that_is_asked_for() -> None:
    done = piped("environments", "build", "--help", COLUMNS="100")
    assert done.returncode == 0, done.stderr
    assert max(len(line) for line in done.stdout.splitlines()) == 100

"""``--help`` shows flags without a value type, and a stray value after a flag gets a hint."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from polistemics.cli import app

runner = CliRunner()


@pytest.mark.parametrize(
    "command",
    [[], ["run"], ["report"], ["score"], ["cache"], ["data", "inspect"], ["environments"]],
)
def test_help_prints_no_bool_placeholder(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    assert "--help" in result.stdout
    assert "<bool>" not in result.stdout


def test_help_still_types_options_that_take_values() -> None:
    result = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "160"})
    assert "--dry-run" in result.stdout
    assert "<float>" in result.stdout  # --max-cost takes a number: its type stays


def test_a_value_after_a_flag_gets_a_hint() -> None:
    result = runner.invoke(app, ["run", "--dry-run", "true"])
    assert result.exit_code != 0
    assert "no such config file" in result.output
    assert "take no value" in result.output

"""``main()`` imports only the modules of the command it runs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from polistemics.cli import COMMAND_MODULES, requested_command

PROBE = """
import sys
sys.argv = ["polistemics", *{args!r}]
from polistemics.cli import main
try:
    main()
except SystemExit:
    pass
print("LOADED", " ".join(sorted(m for m in ("matplotlib", "scipy", "polistemics.report.build") if m in sys.modules)))
"""


def _loaded(*args: str) -> tuple[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=list(args))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("LOADED"))
    return line.removeprefix("LOADED").strip(), done.stdout


def test_the_command_is_the_first_argument_that_is_not_an_option():
    assert requested_command(["annotate", "serve", "runs/x"]) == "annotate"
    assert requested_command(["--version"]) is None
    assert requested_command([]) is None
    assert requested_command(["anotate"]) is None  # a typo gets the full app's suggestion


def test_a_light_command_does_not_load_the_report():
    loaded, out = _loaded("annotate", "--help")
    assert "matplotlib" not in loaded and "polistemics.report.build" not in loaded
    assert "serve" in out and "stats" in out and "sample" in out


@pytest.mark.parametrize("args", [["--help"], ["report", "--help"]])
def test_help_and_heavy_commands_still_load_what_they_need(args):
    loaded, out = _loaded(*args)
    assert "polistemics.report.build" in loaded
    if args == ["--help"]:
        assert all(command in out for command in COMMAND_MODULES)
